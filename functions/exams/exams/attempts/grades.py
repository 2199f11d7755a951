"""Manual grades of subjective/coding answers (client admin of the attempt's tenant, super admin):
re-grades the attempt with an optimistic version check."""
from __future__ import annotations

from lambdakit import clock
from lambdakit.errors import ApiError, ConditionFailed, ValidationFailed

from ..grading import MANUAL, KeyEntry, grade
from ..identity import Principal, ensure_object_tenant
from ..papers import service as papers
from ..settings import settings
from . import repository as repo
from .access import not_found
from .submission import enqueue_analytics
from .views import joined_results, present, stored_results


def set_grades(p: Principal, attempt_id: str, grades: list[dict]) -> dict:
    a, saved = repo.get_with_answers(attempt_id)
    if not a:
        raise not_found(attempt_id)
    ensure_object_tenant(p, a["client_id"])
    if a["status"] != "submitted":
        raise ApiError("Only submitted attempts can be graded", code="STATE_CONFLICT", status=409,
                       details={"expected_state": "submitted", "actual_state": a["status"]})
    key_item, t = papers.key_and_test(a["test_id"])
    keys_by = {q: KeyEntry.from_item(q, k) for q, k in (key_item or {}).get("keys", {}).items()}
    manual = dict(a.get("manual_marks") or {})
    for g in grades:
        k = keys_by.get(g["question_id"])
        if not k or g["question_id"] not in {o["question_id"] for o in a.get("order") or []}:
            raise ValidationFailed("question_id is not part of this attempt", fields={"question_id": g["question_id"]})
        if k.question_type not in MANUAL:
            raise ValidationFailed("Only subjective and coding questions are graded manually",
                                   fields={"question_id": g["question_id"]})
        if g["marks"] < 0 or g["marks"] > k.marks:
            raise ValidationFailed(f"marks must be between 0 and {k.marks}", fields={"marks": g["question_id"]})
        manual[g["question_id"]] = float(g["marks"])
    answers = {r["question_id"]: r.get("answer") for r in joined_results(a.get("results"), saved)}
    keys = [keys_by[o["question_id"]] for o in a.get("order") or [] if o["question_id"] in keys_by]
    result = grade(keys, answers, negative_marking=bool((t or {}).get("negative_marking")), manual=manual)
    passing = float((t or {}).get("passing_percentage", settings().default_passing_percentage))
    passed = result.pending_manual == 0 and result.percentage >= passing
    fields = {"score": result.score, "raw_score": result.raw_score, "percentage": result.percentage,
              "passed": passed, "pending_manual": result.pending_manual, "manual_marks": manual,
              "results": stored_results(result.results), "graded_by": p.user_id,
              "graded_at": clock.now_iso(), "counted_passed": passed}
    completes = int(a.get("pending_manual") or 0) > 0 and result.pending_manual == 0
    if completes:  # the fold's outbox entry before the grade that makes it foldable (issue 23 rule 4)
        repo.mark_fold_due(attempt_id, a["test_id"])
    try:
        new = repo.regrade(attempt_id, fields, expected_version=int(a.get("grade_version") or 0),
                           client_id=a["client_id"], percentage=result.percentage)
    except ConditionFailed:
        raise ApiError("The attempt was graded concurrently; retry", code="CONFLICT", status=409) from None
    from ..stats import counters

    counters.bump(a["client_id"], score_sum=round(result.percentage - float(a.get("percentage") or 0), 4),
                  pass_count=int(passed) - int(bool(a.get("counted_passed"))))
    if completes:
        enqueue_analytics(new)
    from ..audit.writer import record

    record("attempt.grade", "attempt", attempt_id, user_id=p.user_id, client_id=a["client_id"],
           metadata={"grades": len(grades), "score": result.score})
    out = present(new, t, p)
    out["results"] = joined_results(new.get("results"), saved)
    return out
