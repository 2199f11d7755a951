"""Read models of an attempt (no I/O): the summary every attempt response and list row starts
from (``AttemptView``; scores masked until the test shows results), the detail view (questions
without answer keys in the attempt's order, section windows, saved answers) and a saved answer."""
from __future__ import annotations

from typing import Any, Iterable

from lambdakit import clock

from ..identity import Principal
from . import paper
from .correctness import may_see_correctness, projection


def stored_results(results: Iterable[Any]) -> list[dict]:
    """``QuestionResult``s as kept on the attempt item: an answer longer than ``INLINE_ANSWER_CHARS``
    is left out (the bound and its reasons: ``models``; imported here, by the writes only, so a read
    does not import the models module, issue 21)."""
    from .models import INLINE_ANSWER_CHARS

    out = []
    for r in results:
        item = r.to_item()
        if item.get("answer") is not None and len(str(item["answer"])) > INLINE_ANSWER_CHARS:
            del item["answer"]
        out.append(item)
    return out


def joined_results(results: list[dict] | None, answers: dict[str, dict]) -> list[dict]:
    """Stored results with every left-out answer read back from the saved answer items."""
    return [r if "answer" in r else {**r, "answer": (answers.get(r["question_id"]) or {}).get("answer")}
            for r in results or []]


#: The one decision (``correctness.may_see_correctness``), under the name the callers know.
results_visible = may_see_correctness


def present(a: dict, test: dict | None, p: Principal | None) -> dict:
    """``AttemptView``'s data, built from the correctness-free projection when results are hidden."""
    visible = results_visible(p, test)
    a = projection(a, visible)
    now = clock.now_ts()
    out = {k: a.get(k) for k in ("id", "student_id", "test_id", "client_id", "status", "guest_name", "started_at",
                                 "deadline", "submitted_at", "time_taken", "attempt_number", "risk_score",
                                 "submit_reason", "test_name")}
    out["is_guest"] = bool(a.get("is_guest"))
    out["attempt_token"] = None
    if a.get("time_taken") is not None:  # spec: time_taken is the client's, supplied on submit
        out["server_time_taken"] = a["time_taken"]
        if a.get("client_time_taken") is not None:
            out["time_taken"] = a["client_time_taken"]
    if a.get("status") == "in_progress":
        out["remaining_seconds"] = paper.remaining_seconds(float(a["deadline_ts"]), now)
        out["current_section"] = (a.get("sections") or [{}])[paper.current_section_index(a, now)].get("id")
        out["server_time"] = clock.now_iso()
    if a.get("status") == "submitted":
        out["result_masked"] = not visible
        out["score"] = a.get("score")
        out["total_marks"] = a.get("total_marks")
        out["percentage"] = a.get("percentage")
        out["passed"] = a.get("passed")
        out["pending_manual_grading"] = int(a.get("pending_manual") or 0)
    else:
        out["score"] = None
    return out


def answer_view(ans: dict, attempt_id: str) -> dict:
    """A saved answer: the spec's attempt answer {attempt_id, question_id, selected_option,
    marked_for_review}, plus ``student_answer`` (the same value) and ``saved_at``."""
    return {"attempt_id": attempt_id, "question_id": ans["question_id"], "selected_option": ans.get("answer"),
            "student_answer": ans.get("answer"), "marked_for_review": bool(ans.get("marked_for_review")),
            "saved_at": ans.get("saved_at")}


def detail(a: dict, answers: dict[str, dict], test: dict | None, questions: list[dict],
           p: Principal | None) -> dict:
    """``AttemptDetailView``: the summary plus the attempt's questions (``questions``: the test's paper),
    its sections with their closing times, the saved answers and, once visible, the results."""
    from lambdakit.model import dump

    from ..papers.service import for_attempt  # the test's fields for its taker: the papers domain's view
    from .models import AttemptDetailView

    out = {**present(a, test, p), **(for_attempt(test).model_dump() if test else {})}
    visible = results_visible(p, test)
    a = projection(a, visible)
    papers = {q["id"]: q for q in questions}
    qs = []
    for o in a.get("order") or []:
        q = papers.get(o["question_id"])
        if q:
            pq = paper.public_question(q, o.get("options") or [])
            pq["section_id"] = o.get("section_id")
            qs.append(pq)
    out["questions"] = qs
    out["sections"] = [{"id": s["id"], "title": s.get("title"), "question_ids": s.get("question_ids"),
                        "lock_navigation": s.get("lock_navigation"),
                        "closes_at": paper.iso_at(a["started_ts"] + s["end_offset"])
                        if s.get("end_offset") is not None else None} for s in a.get("sections") or []]
    out["answers"] = [answer_view(x, a["id"]) for x in answers.values()]
    if a.get("status") == "submitted" and visible and (test or {}).get("allow_review", 1):
        out["results"] = joined_results(a.get("results"), answers)
    return dump(AttemptDetailView, out, exclude_unset=True)
