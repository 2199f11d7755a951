"""Issue 34: exports in each format read back losslessly by our parser (round trip per type), and
by an independent reader where one exists (Moodle XML: ``moodle-xml-parser`` from PyPI)."""
import pytest

from exams.questions.formats import export, parse
from exams.questions.formats.common import Unexportable
from exams.questions.rules import validate_items

from .bank import bank, comparable

ROUND_TRIP = {  # format: the question types it carries losslessly
    "moodle_xml": {"mcq", "multi_select", "true_false", "fill_blank", "subjective"},
    "gift": {"mcq", "multi_select", "true_false", "fill_blank", "subjective"},
}


def _read_back(fmt: str, data: bytes) -> list[dict]:
    parsed = parse(fmt, data)
    assert parsed.errors == []
    good, errors = validate_items(parsed.items)
    assert errors == []
    return good


@pytest.mark.parametrize("fmt", sorted(ROUND_TRIP))
def test_round_trip_is_lossless_for_every_mapped_type(fmt):
    questions = bank()
    assert {q["question_type"] for q in questions} == ROUND_TRIP[fmt]
    data, _, _ = export(fmt, questions, title="Biology / Cells")
    back = _read_back(fmt, data)
    assert [comparable(q) for q in back] == [comparable(q) for q in questions]


def test_aiken_round_trip_and_refusal_of_what_it_cannot_carry():
    questions = [q for q in bank() if q["question_type"] == "mcq" and "\n" not in q["question_text"]]
    data, _, _ = export("aiken", questions, title="x")
    back = _read_back("aiken", data)
    keep = ("question_text", "option_a", "option_b", "option_c", "option_d", "correct_answer", "question_type")
    assert [{k: q[k] for k in keep} for q in back] == [{k: q[k] for k in keep} for q in questions]
    with pytest.raises(Unexportable) as exc:
        export("aiken", bank(), title="x")
    assert {p["question_id"] for p in exc.value.problems} == {f"q{i}" for i in range(1, 10)}


def test_gift_escapes_every_special_character():
    q = [x for x in bank() if x["question_text"].startswith("Tricky")][0]
    data, _, _ = export("gift", [q], title="t")
    text = data.decode()
    body = text.split("::", 2)[2]  # after the title
    assert r"Tricky \~ \= \# \{ \} \: \\ & < >" in body and "\\na second line" in body
    assert r"=a \~ b" in body and r"~\{x\} \= \#1\: y" in body


def test_moodle_export_read_by_moodle_xml_parser():
    """The independent reader (PyPI ``moodle-xml-parser``) reads multichoice questions with their HTML.
    It deletes every literal ``]]>`` from the text it reads (its own regex, after XML parsing), so the
    comparison does too; the standard library's reading below shows the ``]]>`` is in the file."""
    from moodle_xml_parser.parser import parse_bytes

    questions = bank()
    data, _, _ = export("moodle_xml", questions, title="t")
    read = parse_bytes(data)["multichoice"]
    ours = [q for q in questions if q["question_type"] in ("mcq", "multi_select")]
    assert len(read) == len(ours) == 4
    for theirs, q in zip(read, ours, strict=True):
        assert theirs.text_pre_parse == q["question_text"].strip().replace("]]>", "")
        assert theirs.single is (q["question_type"] == "mcq")
        assert theirs.default_grade == float(q["marks"])
        opts = [q[f"option_{x}"] for x in "abcd" if q.get(f"option_{x}")]
        assert [o.answer for o in theirs.options] == opts
        right = set(q["correct_answers"] or [q["correct_answer"]])
        got = {"ABCD"[i] for i, o in enumerate(theirs.options) if o.score_fraction > 0}
        assert got == right
        assert abs(sum(o.score_fraction for o in theirs.options if o.score_fraction > 0) - 100) < 0.01


def test_moodle_export_is_well_formed_for_the_standard_library_parser():
    """Every question (all types) is read by the standard library's parser, a second reader: the
    CDATA split of ``]]>`` and the category path come back as written."""
    import xml.etree.ElementTree as ET

    questions = bank()
    data, _, _ = export("moodle_xml", questions, title="Biology / Cells")
    root = ET.fromstring(data)
    qs = root.findall("question")
    assert qs[0].get("type") == "category"
    assert qs[0].findtext("category/text") == "$course$/top/Biology // Cells"
    assert [q.get("type") for q in qs[1:]] == ["multichoice"] * 4 + ["truefalse"] * 2 + ["shortanswer"] * 2 + [
        "essay"] * 2
    assert qs[9].findtext("graderinfo/text") == "Water crosses a membrane ]]> <b>bold</b>"
    assert qs[2].findtext("questiontext/text") == questions[1]["question_text"]


@pytest.mark.parametrize("fmt", ["moodle_xml", "qti3"])
def test_characters_xml_forbids_are_dropped_not_written(fmt):
    q = {**bank()[7], "question_text": "A \x07bell\x1b colour", "correct_answers": ["r\x00ed"]}
    data, _, _ = export(fmt, [q], title="t\x01")
    back = _read_back(fmt, data)
    assert back[0]["question_text"] == "A bell colour" and back[0]["correct_answers"] == ["red"]
