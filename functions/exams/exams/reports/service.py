"""Attempt report data (access rules, values) for the XLSX workbook.

Correctness (issue 32 item 1): the report is built from ``attempts.correctness.projection`` of
the attempt. When the requester may not see correctness yet, it reads neither the answer key nor
the item statistics, and its data carries no score, percentage, result, correct answer, status,
marks awarded, correct ratio, facility or discrimination index, statistics-derived difficulty or
per-section or per-band correct counts: ``workbook`` then writes sheets without those columns.
"""
from __future__ import annotations

import re
from typing import Any

from lambdakit.errors import ApiError

from ..attempts import access
from ..attempts.correctness import may_see_correctness, projection
from ..attempts.views import joined_results
from ..identity import Principal

XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def answer_text(question_type: str | None, value: Any) -> str | None:
    """An answer or key in the terms the candidate saw: true/false as ``True``/``False`` (stored as
    ``A``/``B`` or ``true``/``false``), option letters comma-separated; ``None`` when empty."""
    from ..grading import norm_true_false

    if value in (None, "", []):
        return None
    if question_type == "true_false":
        tf = norm_true_false(value)
        return {"A": "True", "B": "False"}.get(tf or "", str(value))
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def report(p: Principal | None, attempt_id: str, token: str | None) -> tuple[bytes, str]:
    from ..analytics import repository as anrepo
    from ..attempts import repository as arepo

    raw, answers = arepo.get_with_answers(attempt_id)
    if not raw:
        raise access.not_found(attempt_id)
    access.authorize(p, raw, token)
    if raw["status"] != "submitted":
        raise ApiError("The report is available after submission", code="STATE_CONFLICT", status=409,
                       details={"expected_state": "submitted", "actual_state": raw["status"]})
    # the test, its paper, answer key and item statistics: one query of the test's partition
    test, paper, key_item, istats = anrepo.test_with_item_stats(raw["test_id"])
    t = test or {}
    visible = may_see_correctness(p, t)
    a = projection(raw, visible)
    if not visible:  # nothing below may depend on the key or on other candidates' correctness
        key_item, istats = None, {}
    data = {
        "correctness": visible, "candidate": _candidate(a), "test_name": a.get("test_name") or t.get("test_name") or "",
        "status": a["status"], "total_marks": a.get("total_marks"), "time_taken": a.get("time_taken"),
        "started_at": a.get("started_at"), "submitted_at": a.get("submitted_at"), "risk_score": a.get("risk_score") or 0,
        **_rows(a, answers, {q["id"]: q for q in paper}, (key_item or {}).get("keys") or {}, istats, visible),
    }
    if visible:
        data.update(score=a.get("score"), percentage=a.get("percentage"),
                    result="passed" if a.get("passed") else "not passed")
    from . import workbook

    name = re.sub(r"[^A-Za-z0-9._-]+", "-", f"attempt-report-{a['id'][:8]}").strip("-") + ".xlsx"
    return workbook.build(data), name


def _candidate(a: dict) -> str:
    candidate = a.get("guest_name") or a.get("student_name") or a.get("student_id") or "guest"
    if a.get("student_id") and not a.get("guest_name"):
        from ..users import repository as urepo

        prof = urepo.get_profile(a["student_id"]) or {}
        candidate = prof.get("name") or prof.get("email") or candidate
    return candidate


def _rows(a: dict, answers: dict[str, dict], papers: dict[str, dict], keys: dict[str, dict], istats: dict,
          visible: bool) -> dict[str, Any]:
    """Questions, sections and difficulty bands; correctness columns only when ``visible``."""
    from ..analytics import itemstats

    results = {r["question_id"]: r for r in joined_results(a.get("results"), answers)} if visible else {}
    questions: list[dict[str, Any]] = []
    sections: dict[str, dict[str, Any]] = {}
    bands: dict[str, dict[str, Any]] = {}
    for o in a.get("order") or []:
        qid = o["question_id"]
        q, r, k = papers.get(qid, {}), results.get(qid, {}), keys.get(qid, {})
        qtype = q.get("question_type")
        marks = float(k.get("m") or q.get("marks") or 0)
        chosen = (answers.get(qid) or {}).get("answer")
        row: dict[str, Any] = {
            "text": q.get("question_text") or "", "type": qtype,
            "options": {L: q.get(f"option_{L.lower()}") for L in "ABCD"},
            "chosen": answer_text(qtype, chosen if chosen not in (None, "") else r.get("answer")) or "(not answered)",
            "max_marks": marks, "time_spent": int((answers.get(qid) or {}).get("time_spent") or 0),
            "difficulty": q.get("difficulty") or "unrated"}
        if visible:
            st = itemstats.item_statistics(istats.get(qid, {}), max_mark=marks,
                                           min_mark=-marks * float(k.get("nr") or 0))
            correct = k.get("c")
            row.update(correct=answer_text(qtype, correct) or "manual grading", status=r.get("status"),
                       marks_awarded=r.get("marks_awarded"), correct_ratio=st.get("correct_ratio"),
                       facility_index=round(st["facility_index"], 2) if st.get("facility_index") is not None else None,
                       discrimination_index=round(st["discrimination_index"], 2)
                       if st.get("discrimination_index") is not None else None,
                       difficulty=q.get("difficulty") or st.get("difficulty") or "unrated")
        questions.append(row)
        sec = sections.setdefault(o.get("section_id") or "main", {"title": o.get("section_id") or "main",
                                                                 "questions": 0, "max_marks": 0.0})
        sec["questions"] += 1
        sec["max_marks"] += marks
        band = bands.setdefault(row["difficulty"], {"questions": 0})
        band["questions"] += 1
        if visible:
            right = 1 if r.get("status") == "correct" else 0
            sec["correct"] = sec.get("correct", 0) + right
            sec["marks_awarded"] = sec.get("marks_awarded", 0.0) + float(r.get("marks_awarded") or 0)
            band["correct"] = band.get("correct", 0) + right
    for s in a.get("sections") or []:
        if s["id"] in sections:
            sections[s["id"]]["title"] = s.get("title") or s["id"]
    return {"sections": list(sections.values()), "questions": questions, "difficulty_analysis": bands}
