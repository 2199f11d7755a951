import random

import pytest

from exams.attempts import paper
from exams.grading import KeyEntry, grade, key_for_question, norm_letters
from exams.questions.rules import RuleError, normalise_question, parse_csv, validate_rows


def key(qid, qt, correct, marks=1.0, ratio=0.25, cs=False):
    return KeyEntry(qid, qt, marks, correct, cs, None, ratio)


def test_grading_all_types_with_negative_marking_and_floor():
    keys = [
        key("m", "mcq", "B", 2), key("t", "true_false", "A"), key("ms", "multi_select", ("A", "C"), 3),
        key("f", "fill_blank", ("Paris", "Paname")), key("s", "subjective", None, 5), key("u", "mcq", "A"),
    ]
    r = grade(keys, {"m": "b", "t": "true", "ms": "C, a", "f": "  paris ", "s": "essay"}, negative_marking=True)
    by = {x.question_id: x for x in r.results}
    assert [by[q].status for q in "m t ms f s u".split()] == ["correct", "correct", "correct", "correct", "pending",
                                                               "unanswered"]
    assert r.score == 2 + 1 + 3 + 1 and r.total_marks == 13 and r.pending_manual == 1
    r = grade(keys, {"m": "A", "t": "false", "ms": ["A"], "f": "London"}, negative_marking=True)
    assert r.raw_score == pytest.approx(-(0.5 + 0.25 + 0.75 + 0.25))
    assert r.score == 0  # floored
    r = grade(keys, {"m": "A", "t": "A"}, negative_marking=False)
    assert r.score == 1 and r.raw_score == 1


def test_fill_blank_nfc_and_case_sensitivity():
    decomposed = "Cafe\u0301"
    assert grade([key("f", "fill_blank", ("Café",))], {"f": decomposed}, negative_marking=False).score == 1
    assert grade([key("f", "fill_blank", ("Café",), cs=True)], {"f": "café"}, negative_marking=False).score == 0
    assert grade([key("f", "fill_blank", ("Café",), cs=True)], {"f": " Café "}, negative_marking=False).score == 1


def test_multi_select_all_or_nothing_and_formats():
    assert norm_letters("a, c,C") == ("A", "C")
    k = [key("x", "multi_select", ("A", "C"))]
    assert grade(k, {"x": ["A", "C", "D"]}, negative_marking=False).score == 0
    assert grade(k, {"x": "A"}, negative_marking=False).score == 0
    assert grade(k, {"x": "C,A"}, negative_marking=False).score == 1


def test_manual_marks_and_keys_from_questions():
    q = {"id": "q", "question_type": "true_false", "correct_answer": "false", "marks": 2}
    assert key_for_question(q, negative_ratio=0.5).correct == "B"
    k = [key("s", "coding", None, 10)]
    assert grade(k, {"s": "print()"}, negative_marking=True, manual={"s": 7}).score == 7


def test_question_rules():
    with pytest.raises(RuleError) as e:
        normalise_question({"question_text": "x", "question_type": "essay"})
    assert e.value.code == "INVALID_QUESTION_TYPE"
    with pytest.raises(RuleError):
        normalise_question({"question_text": "x", "question_type": "mcq", "option_a": "1", "option_b": "2",
                            "correct_answer": "C"})
    q = normalise_question({"question_text": "x", "question_type": "multi_select", "option_a": "1", "option_b": "2",
                            "option_c": "3", "correct_answer": "c,a"})
    assert q["correct_answers"] == ["A", "C"]
    q = normalise_question({"question_text": "x", "question_type": "fill_blank", "correct_answer": "a|b "})
    assert q["correct_answers"] == ["a", "b"]
    assert normalise_question({"question_text": "x", "question_type": "true_false",
                               "correct_answer": "TRUE"})["correct_answer"] == "A"


def test_csv_two_passes_report_every_bad_row():
    data = ("question_text,question_type,option_a,option_b,option_c,option_d,correct_answer,marks,difficulty\n"
            "Q1,mcq,a,b,c,d,B,1,easy\n"
            "Q2,mcq,a,b,,,,1,easy\n"
            "Q3,essay,a,b,,,A,1,easy\n"
            "Q4,mcq,a,b,,,A,abc,easy\n"
            "Q5,multi_select,a,b,c,,\"A,C\",2,hard\n").encode()
    _, rows = parse_csv(data)
    good, errors = validate_rows(rows)
    assert [e["line"] for e in errors] == [3, 4, 5]
    assert errors[0]["error"] == "correct_answer is required" and errors[0]["row_data"]["question_text"] == "Q2"
    assert len(good) == 2 and good[1]["correct_answers"] == ["A", "C"]
    with pytest.raises(RuleError):
        parse_csv(b"question_text,marks\nx,1\n")


def test_paper_order_sections_and_deadline():
    test = {"timer": 30, "sections": [
        {"id": "s1", "title": "A", "question_ids": ["a", "b", "c"], "duration_minutes": 10, "shuffle_questions": True,
         "shuffle_options": True, "lock_navigation": True},
        {"id": "s2", "title": "B", "question_ids": ["d"], "duration_minutes": 5}]}
    assert paper.total_seconds(test) == 900
    secs, order = paper.build_attempt_paper(test, {"a": "mcq", "b": "mcq", "c": "fill_blank", "d": "true_false"},
                                            rng=random.Random(3))
    assert [s["end_offset"] for s in secs] == [600, 900]
    assert sorted(secs[0]["question_ids"]) == ["a", "b", "c"]
    assert sorted(order[0]["options"]) == ["A", "B", "C", "D"]
    assert [o["options"] for o in order if o["question_id"] == "d"] == [["A", "B"]]
    att = {"started_ts": 1000, "sections": secs, "furthest_section": 1}
    assert paper.lock_reason(att, 0, secs[0], 1100, 60) == "navigation_locked"
    att["furthest_section"] = 0
    assert paper.lock_reason(att, 0, secs[0], 1000 + 600 + 61, 60) == "time_expired"
    assert paper.lock_reason(att, 0, secs[0], 1000 + 600 + 59, 60) is None
    assert paper.current_section_index(att, 1000 + 601) == 1
    assert paper.total_seconds({"timer": 20, "question_ids": ["x"]}) == 1200
