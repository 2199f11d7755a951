"""Submission: the candidate's submit and the automatic ones (deadline + grace, on the next touch
or by the sweep; proctoring risk), each graded and written exactly once (a conditional update),
then counted, queued for the analytics fold, measured and audited. Manual grades: ``grades``."""
from __future__ import annotations

import time
from typing import Any

from lambdakit import clock
from lambdakit.errors import ConditionFailed
from lambdakit.observability import count, timing

from ..grading import KeyEntry, grade
from ..identity import Principal
from ..papers import service as papers
from ..settings import settings
from . import repository as repo
from .access import already_submitted, authorize, load, not_found
from .views import present, stored_results


def submit(p: Principal | None, attempt_id: str, token: str | None, *, client_time_taken: Any = None) -> dict:
    a, answers = repo.get_with_answers(attempt_id)
    if not a:
        raise not_found(attempt_id)
    authorize(p, a, token, write=True)
    if a["status"] != "in_progress":
        raise already_submitted(a)
    late = clock.now_ts() > float(a["deadline_ts"]) + settings().answer_grace_seconds
    done, t = finalize(a, answers, reason="deadline" if late else "manual", client_time_taken=client_time_taken)
    if done is None:
        raise already_submitted(load(attempt_id))
    out = present(done, t, p)
    return out


def finalize(a: dict, answers: dict[str, dict], *, reason: str, client_time_taken: Any = None
             ) -> tuple[dict | None, dict | None]:
    """Grade and submit exactly once. Returns (attempt, test), or (None, test) when another
    caller submitted first. Round trips: test key+settings query, one conditional update,
    counters, audit (plus the caller's attempt query)."""
    key_item, t = papers.key_and_test(a["test_id"])
    keys = [KeyEntry.from_item(o["question_id"], key_item["keys"][o["question_id"]])
            for o in a.get("order") or [] if key_item and o["question_id"] in key_item["keys"]]
    began = time.perf_counter()
    result = grade(keys, {q: x.get("answer") for q, x in answers.items()},
                   negative_marking=bool((t or {}).get("negative_marking")))
    grading_ms = (time.perf_counter() - began) * 1000
    now_ts = clock.now_ts()
    end_ts = min(now_ts, float(a["deadline_ts"]) + settings().answer_grace_seconds)
    time_taken = max(0, int(round(end_ts - float(a["started_ts"]))))
    passing = float((t or {}).get("passing_percentage", settings().default_passing_percentage))
    passed = result.pending_manual == 0 and result.percentage >= passing
    fields = {"status": "submitted", "submitted_at": clock.now_iso(), "submit_reason": reason,
              "score": result.score, "raw_score": result.raw_score, "total_marks": result.total_marks,
              "percentage": result.percentage, "passed": passed, "pending_manual": result.pending_manual,
              "results": stored_results(result.results), "time_taken": time_taken, "grade_version": 0,
              "manual_marks": {}, "counted_passed": passed}
    if client_time_taken is not None:
        try:
            fields["client_time_taken"] = int(client_time_taken)
        except (TypeError, ValueError):
            pass
    try:  # fully graded: the fold's outbox entry in the same transaction (issue 23 rule 4)
        done = repo.mark_submitted(a["id"], fields, client_id=a["client_id"], percentage=result.percentage,
                                   fold_due_of=a if result.pending_manual == 0 else None)
    except ConditionFailed:
        return None, t
    _submitted_metrics(reason, grading_ms)
    from ..stats import counters

    counters.bump(a["client_id"], attempts_submitted=1, score_sum=round(result.percentage, 4),
                  pass_count=1 if passed else 0)
    if result.pending_manual == 0:
        enqueue_analytics(done)
    from ..audit.writer import record

    record("attempt.submit", "attempt", a["id"], user_id=a.get("student_id"), client_id=a["client_id"],
           metadata={"reason": reason, "score": result.score})
    return done, t


def _submitted_metrics(reason: str, grading_ms: float) -> None:
    """Once per submission (only the caller whose conditional update won)."""
    count("AttemptsSubmitted")
    if reason != "manual":
        count("AttemptsAutoSubmitted")
    if reason == "proctoring":
        count("RiskAutoSubmits")
    timing("GradingDuration", grading_ms)


def enqueue_analytics(a: dict) -> None:
    """Queue the fully graded attempt for the analytics fold (item statistics)."""
    try:
        repo.enqueue_analytics({"type": "attempt_graded", "attempt_id": a["id"], "test_id": a["test_id"]})
    except Exception:  # noqa: BLE001 - submission stands; the sweep re-queues it (FOLDDUE entry)
        from ..http import logger

        logger.exception("analytics enqueue failed; the sweep re-queues it", extra={"attempt_id": a["id"]})


def expire_if_due(a: dict, answers: dict[str, dict]) -> dict:
    """The next-touch rule: an attempt read past its deadline + grace is submitted now."""
    if a["status"] == "in_progress" and clock.now_ts() > float(a["deadline_ts"]) + settings().answer_grace_seconds:
        done, _ = finalize(a, answers, reason="deadline")
        return done or load(a["id"])
    return a


def auto_submit(attempt_id: str, reason: str) -> bool:
    """Submit an attempt still in progress (deadline, proctoring): True when this call did it.
    Used by answer saves and starts that meet an overdue attempt, the sweep and proctoring."""
    a, answers = repo.get_with_answers(attempt_id)
    if not a or a["status"] != "in_progress":
        return False
    done, _ = finalize(a, answers, reason=reason)
    return done is not None
