"""Issue 34, QTI 3.0: a content package in the style of real exports imports as expected, single
items import, what cannot be mapped is reported, and our export round-trips losslessly and is
read by an independent implementation (``citolab-qti-convert``, QTI 3 → 2.1)."""
import io
import zipfile
from pathlib import Path

import pytest

from exams.questions.formats import export, parse
from exams.questions.formats.common import FormatError
from exams.questions.rules import validate_items

from .bank import bank, comparable

PKG = Path(__file__).parent / "fixtures" / "qti_package"


def package(root: Path = PKG, **extra: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted(root.rglob("*")):
            if f.is_file() and f.relative_to(root).as_posix() not in extra:
                z.write(f, f.relative_to(root).as_posix())
        for k, v in extra.items():
            z.writestr(k, v)
    return buf.getvalue()


def test_package_in_the_style_of_a_real_export_imports_as_expected():
    parsed = parse("qti3", package())
    assert parsed.errors == []
    good, errors = validate_items(parsed.items)
    assert errors == []
    cell, prime, entry, essay = good
    assert cell["question_type"] == "mcq" and cell["correct_answer"] == "B"
    assert cell["question_text"] == ('<p>Look at the picture.</p>\n    <img src="../images/cell.png" alt="An animal cell" '
                                     'width="200" height="150"></img><p>Which organelle is the <strong>powerhouse'
                                     '</strong> of the cell?</p>')
    assert (cell["option_a"], cell["option_b"], cell["option_c"]) == ("Nucleus", "Mitochondrion", "Ribosome")
    assert parsed.items[0].warnings == ["referenced files are not stored (their references stay in the text): "
                                        "../images/cell.png, images/cell.png"]
    assert parsed.items[0].ref == "items/choice-cell.xml (choice-cell)" and parsed.items[0].line == 2
    assert prime["question_type"] == "multi_select" and prime["correct_answers"] == ["A", "B"] and prime["marks"] == 2
    assert entry["question_type"] == "fill_blank" and entry["correct_answers"] == ["York", "york"]
    assert entry["case_sensitive"] is True
    assert "Made glorious summer by this sun of\n        _____;" in entry["question_text"]
    assert essay["question_type"] == "subjective" and essay["question_text"] == "Explain osmosis in your own words."


def test_single_item_and_unmappable_interactions():
    item = (PKG / "items" / "multi-prime.xml").read_bytes()
    parsed = parse("qti3", item)
    assert [i.fields["question_type"] for i in parsed.items] == ["multi_select"]
    match = item.replace(b"qti-choice-interaction", b"qti-match-interaction")
    parsed = parse("qti3", package(**{"items/multi-prime.xml": match}))
    assert [e["item"] for e in parsed.errors] == ["items/multi-prime.xml (multi-prime)"]
    assert "qti-match-interaction cannot be mapped" in parsed.errors[0]["error"]
    with pytest.raises(FormatError, match="not a QTI 3.0 item"):
        parse("qti3", b'<assessmentItem xmlns="http://www.imsqlobal.org/xsd/imsqti_v2p1"/>')
    with pytest.raises(FormatError, match="no imsmanifest.xml"):
        parse("qti3", package(root=PKG / "items"))


def test_round_trip_is_lossless_for_every_mapped_type():
    questions = bank()
    data, ctype, _ = export("qti3", questions, title="t")
    assert ctype == "application/zip"
    parsed = parse("qti3", data)
    assert parsed.errors == []
    good, errors = validate_items(parsed.items)
    assert errors == []
    assert [comparable(q) for q in good] == [comparable(q) for q in questions]


def test_export_read_by_an_independent_qti3_implementation(tmp_path):
    """citolab-qti-convert reads our package (manifest and items) and converts it to QTI 2.1; the
    converted items keep each interaction, choice and correct response."""
    import xml.etree.ElementTree as ET

    from qti_convert import downgrade_package

    questions = bank()
    data, _, _ = export("qti3", questions, title="t")
    src, dst = tmp_path / "qti3.zip", tmp_path / "qti21.zip"
    src.write_bytes(data)
    downgrade_package(str(src), str(dst))
    with zipfile.ZipFile(dst) as z:
        manifest = ET.fromstring(z.read("imsmanifest.xml"))
        types = {r.get("type") for r in manifest.iter() if r.tag.endswith("resource")}
        assert types == {"imsqti_item_xmlv2p1"}
        items = [ET.fromstring(z.read(f"items/q{n:04d}.xml")) for n in range(1, len(questions) + 1)]
    ns = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"
    for q, item in zip(questions, items, strict=True):
        assert item.tag == f"{ns}assessmentItem"
        kind = {"mcq": "choiceInteraction", "multi_select": "choiceInteraction", "true_false": "choiceInteraction",
                "fill_blank": "textEntryInteraction", "subjective": "extendedTextInteraction"}[q["question_type"]]
        assert item.find(f".//{ns}{kind}") is not None
        values = [v.text for v in item.findall(f".//{ns}correctResponse/{ns}value")]
        if q["question_type"] in ("mcq", "multi_select"):
            assert set(values) == set(q["correct_answers"] or [q["correct_answer"]])
            texts = [c.text for c in item.iter(f"{ns}simpleChoice")]
            assert texts == [q[f"option_{x}"] for x in "abcd" if q.get(f"option_{x}")]
        elif q["question_type"] == "fill_blank":
            keys = [e.get("mapKey") for e in item.iter(f"{ns}mapEntry")]
            assert keys == q["correct_answers"]
