"""Issue 34: each interchange format's parser maps what it can onto our types and reports the rest
by line and item (pure: no AWS); zip packages and XML are read safely."""
import io
import zipfile
from pathlib import Path

import pytest

from exams.questions.formats import parse
from exams.questions.formats.common import FormatError, read_zip
from exams.questions.rules import validate_items

FIX = Path(__file__).parent / "fixtures"


def _valid(fmt: str, name: str) -> tuple[list[dict], list]:
    parsed = parse(fmt, (FIX / name).read_bytes())
    assert parsed.errors == []
    good, errors = validate_items(parsed.items)
    assert errors == []
    return good, parsed.items


def test_moodle_export_of_a_course_maps_every_supported_type():
    good, items = _valid("moodle_xml", "moodle_quiz.xml")
    assert [q["question_type"] for q in good] == ["mcq", "multi_select", "true_false", "fill_blank", "subjective"]
    mcq, multi, tf, short, essay = good
    assert mcq["question_text"].startswith("<p>Which organelle is the <strong>powerhouse</strong>")
    assert '<img src="@@PLUGINFILE@@/cell.png"' in mcq["question_text"]
    assert (mcq["option_a"], mcq["option_b"], mcq["option_c"], mcq["correct_answer"]) == (
        "<p>Nucleus</p>", "<p>Mitochondrion</p>", "<p>Ribosome</p>", "B")
    assert mcq["marks"] == 2 and mcq["difficulty"] == "easy"
    assert multi["correct_answers"] == ["A", "C"] and multi["question_text"].endswith("(&amp; choose all)</p>")
    assert tf["correct_answer"] == "B" and (tf["option_a"], tf["option_b"]) == ("True", "False")
    assert short["correct_answers"] == ["membrane", "plasma membrane"] and short["case_sensitive"] is False
    assert essay["marks"] == 5 and essay["difficulty"] == "hard"
    assert essay["correct_answer"] == "<p>Water moves across a semi-permeable membrane.</p>"
    # the embedded image is not stored, and the import says so for that question
    assert items[0].warnings == ["embedded files are not stored (their references stay in the text): cell.png"]
    assert [i.line for i in items] == [15, 69, 101, 126, 150]  # each <question> start tag


def test_moodle_unmappable_questions_are_reported_by_line_and_name():
    parsed = parse("moodle_xml", (FIX / "moodle_unmappable.xml").read_bytes())
    errs = {e["item"]: e for e in parsed.errors}
    assert set(errs) == {"Capitals", "Pi", "Partial", "Five options", "Embedded"}
    assert "matching" in errs["Capitals"]["error"] and errs["Capitals"]["line"] == 10
    assert "numerical" in errs["Pi"]["error"]
    assert "partial credit" in errs["Partial"]["error"]
    assert "at most 4" in errs["Five options"]["error"]
    assert "cloze" in errs["Embedded"]["error"]
    assert [i.ref for i in parsed.items] == ["Fine"]


def test_gift_file_maps_every_supported_type_and_unescapes():
    good, items = _valid("gift", "bank.gift")
    types = [q["question_type"] for q in good]
    assert types == ["mcq", "mcq", "multi_select", "true_false", "fill_blank", "fill_blank", "subjective", "mcq"]
    france, grant, primes, sun, colours, esc, essay, missing = good
    assert france["question_text"] == "<p>What is the capital of <b>France</b>?</p>"
    assert (france["option_a"], france["option_b"], france["correct_answer"]) == ("Paris", "London", "A")
    assert grant["correct_answer"] == "C" and grant["option_c"] == "no one"
    assert primes["correct_answers"] == ["A", "B"] and primes["option_d"] == "9"
    assert sun["correct_answer"] == "A"
    assert colours["correct_answers"] == ["blue", "white"]
    assert colours["question_text"] == "Two colours of the French flag, one word: blue or white?"
    assert esc["question_text"] == "Escaped specials: 1 = one, a ~ b, #tag, {braces}"
    assert essay["marks"] == 3 and essay["difficulty"] == "hard"
    assert missing["question_text"] == "Moodle costs _____ to download." and missing["correct_answer"] == "B"
    assert items[0].ref == "Capital of France" and items[0].line == 5


def test_gift_unmappable_reported():
    parsed = parse("gift", (FIX / "gift_unmappable.gift").read_bytes())
    assert [(e["line"], e["item"]) for e in parsed.errors] == [(1, "Num"), (3, "Match")]
    assert "numerical" in parsed.errors[0]["error"] and "matching" in parsed.errors[1]["error"]
    assert [i.ref for i in parsed.items] == ["Fine"]


def test_aiken_file_and_its_errors():
    good, items = _valid("aiken", "bank.aiken")
    assert [(q["question_type"], q["correct_answer"], q["option_c"]) for q in good] == [
        ("mcq", "A", "Maybe"), ("mcq", "A", None)]
    assert [i.line for i in items] == [1, 7]
    bad = b"Q one\nA. x\nB. y\n\nQ two\nA. x\nB. y\nANSWER: B\n\nQ three\nA. 1\nB. 2\nC. 3\nD. 4\nE. 5\nANSWER: E\n"
    parsed = parse("aiken", bad)
    assert [(e["line"], e["item"]) for e in parsed.errors] == [(3, "question 1"), (10, "question 3")]
    assert "ANSWER" in parsed.errors[0]["error"] and "at most 4" in parsed.errors[1]["error"]


def test_business_rules_apply_to_mapped_items():
    parsed = parse("gift", b"::Empty key::Pick{=a ~b}\n\n// marks: 5000\n::Heavy::Pick{=a ~b}\n")
    good, errors = validate_items(parsed.items)
    assert len(good) == 1 and errors == [{"line": 4, "item": "Heavy",
                                          "error": "marks: marks must be greater than 0 and at most 1000"}]


@pytest.mark.parametrize("doc", [
    b'<?xml version="1.0"?><!DOCTYPE quiz [<!ENTITY x SYSTEM "file:///etc/passwd">]><quiz>&x;</quiz>',
    b'<?xml version="1.0"?><!DOCTYPE quiz [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><quiz>&b;</quiz>',
])
def test_xml_with_dtd_or_entities_is_refused(doc):
    with pytest.raises(FormatError, match="DTD"):
        parse("moodle_xml", doc)


def test_malformed_xml_reports_its_line():
    with pytest.raises(FormatError) as exc:
        parse("moodle_xml", b"<quiz>\n<question type='essay'>\n<name>\n</quiz>")
    assert exc.value.line == 4


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in members.items():
            z.writestr(k, v)
    return buf.getvalue()


def test_zip_slip_bombs_and_member_counts_are_refused(monkeypatch):
    with pytest.raises(FormatError, match="leaves the package"):
        read_zip(_zip({"../evil.xml": b"x"}))
    with pytest.raises(FormatError, match="leaves the package"):
        read_zip(_zip({"/abs.xml": b"x"}))
    import exams.questions.formats.common as common

    monkeypatch.setattr(common, "MAX_ZIP_TOTAL", 1000)
    with pytest.raises(FormatError, match="expands to more than"):
        read_zip(_zip({"bomb.xml": b"0" * 5000}))  # 5 KB of zeros deflate to a few bytes
    monkeypatch.setattr(common, "MAX_ZIP_MEMBERS", 3)
    with pytest.raises(FormatError, match="more than 3 members"):
        read_zip(_zip({f"m{i}.xml": b"x" for i in range(4)}))
    assert read_zip(_zip({"a/b.xml": b"<x/>"})) == {"a/b.xml": b"<x/>"}
