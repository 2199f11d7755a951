"""Attempt report data (access rules, values) for the XLSX workbook."""
from __future__ import annotations

import re
from typing import Any

from lambdakit.errors import ApiError

from ..attempts import access
from ..attempts.views import joined_results, results_visible
from ..identity import Principal

XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def report(p: Principal | None, attempt_id: str, token: str | None) -> tuple[bytes, str]:
    from ..analytics import itemstats
    from ..analytics import repository as anrepo
    from ..attempts import repository as arepo

    a, answers = arepo.get_with_answers(attempt_id)
    if not a:
        raise access.not_found(attempt_id)
    access.authorize(p, a, token)
    if a["status"] != "submitted":
        raise ApiError("The report is available after submission", code="STATE_CONFLICT", status=409,
                       details={"expected_state": "submitted", "actual_state": a["status"]})
    # the test, its paper, answer key and item statistics: one query of the test's partition
    test, paper, key_item, istats = anrepo.test_with_item_stats(a["test_id"])
    t = test or {}
    visible = results_visible(p, t)
    papers = {q["id"]: q for q in paper}
    keys = (key_item or {}).get("keys") or {}
    results = {r["question_id"]: r for r in joined_results(a.get("results"), answers)}
    questions: list[dict[str, Any]] = []
    sections: dict[str, dict[str, Any]] = {}
    bands: dict[str, dict[str, Any]] = {}
    for o in a.get("order") or []:
        qid = o["question_id"]
        q, r, k = papers.get(qid, {}), results.get(qid, {}), keys.get(qid, {})
        marks = float(k.get("m") or q.get("marks") or 0)
        st = itemstats.item_statistics(istats.get(qid, {}), max_mark=marks,
                                       min_mark=-marks * float(k.get("nr") or 0))
        correct = k.get("c")
        correct_txt = ", ".join(correct) if isinstance(correct, list) else (correct or "manual grading")
        diff = q.get("difficulty") or st.get("difficulty") or "unrated"
        row = {"text": q.get("question_text") or "", "type": q.get("question_type"),
               "options": {L: q.get(f"option_{L.lower()}") for L in "ABCD"},
               "chosen": r.get("answer") if r.get("answer") not in (None, "") else "(not answered)",
               "correct": correct_txt if visible else "(hidden)",
               "status": r.get("status") if visible else "(hidden)",
               "marks_awarded": r.get("marks_awarded") if visible else None, "max_marks": marks,
               "time_spent": int((answers.get(qid) or {}).get("time_spent") or 0),
               "correct_ratio": st.get("correct_ratio"),
               "facility_index": round(st["facility_index"], 2) if st.get("facility_index") is not None else None,
               "difficulty": diff}
        questions.append(row)
        sec = sections.setdefault(o.get("section_id") or "main", {"title": o.get("section_id") or "main",
                                                                 "questions": 0, "correct": 0,
                                                                 "marks_awarded": 0.0, "max_marks": 0.0})
        sec["questions"] += 1
        sec["correct"] += 1 if r.get("status") == "correct" and visible else 0
        sec["marks_awarded"] += float(r.get("marks_awarded") or 0) if visible else 0
        sec["max_marks"] += marks
        b = bands.setdefault(diff, {"questions": 0, "correct": 0})
        b["questions"] += 1
        b["correct"] += 1 if r.get("status") == "correct" and visible else 0
    for s in a.get("sections") or []:
        if s["id"] in sections:
            sections[s["id"]]["title"] = s.get("title") or s["id"]
    candidate = a.get("guest_name") or a.get("student_name") or a.get("student_id") or "guest"
    if a.get("student_id") and not a.get("guest_name"):
        from ..users import repository as urepo

        prof = urepo.get_profile(a["student_id"]) or {}
        candidate = prof.get("name") or prof.get("email") or candidate
    data = {
        "candidate": candidate, "test_name": a.get("test_name") or t.get("test_name") or "",
        "status": a["status"], "score": a.get("score") if visible else None,
        "total_marks": a.get("total_marks"), "percentage": a.get("percentage") if visible else None,
        "result": ("passed" if a.get("passed") else "not passed") if visible else "pending release",
        "time_taken": a.get("time_taken"), "started_at": a.get("started_at"), "submitted_at": a.get("submitted_at"),
        "risk_score": a.get("risk_score") or 0, "sections": list(sections.values()), "questions": questions,
        "difficulty_analysis": bands,
    }
    from . import workbook

    name = re.sub(r"[^A-Za-z0-9._-]+", "-", f"attempt-report-{a['id'][:8]}").strip("-") + ".xlsx"
    return workbook.build(data), name
