"""Saving answers while an attempt runs: a batch of up to 99 (idempotent upsert, 2 DynamoDB round
trips), refused in a locked or closed section; past the deadline + grace the attempt is submitted
instead (409). A guest attempt's first saved answer takes the guest's candidate slot (``guests``)."""
from __future__ import annotations

from typing import Any

from lambdakit import clock
from lambdakit.errors import ApiError, ConditionFailed, Contention, ValidationFailed

from ..grading import norm_letters, norm_true_false
from ..identity import Principal
from ..settings import settings
from . import guests, paper
from . import repository as repo
from .access import already_submitted, authorize, load
from .models import MAX_ANSWER_CHARS
from .submission import auto_submit

MAX_BATCH = 99


def _normalise_answer(qtype: str, value: Any) -> Any:
    if value is None:
        return None
    if qtype == "multi_select":
        letters = norm_letters(value)
        return ",".join(letters) if letters else None
    if isinstance(value, (list, dict)):
        raise ValidationFailed("Answer must be a string", fields={"student_answer": "Must be a string"})
    if qtype == "true_false" and isinstance(value, bool):
        return norm_true_false(value)
    s = str(value)
    if len(s) > MAX_ANSWER_CHARS:
        raise ValidationFailed(f"Answer is longer than {MAX_ANSWER_CHARS} characters",
                               fields={"student_answer": "Too long"})
    return s


def save_answers(p: Principal | None, attempt_id: str, token: str | None, entries: list[dict]) -> dict:
    """Idempotent upsert of up to 99 answers of one attempt (2 DynamoDB round trips)."""
    if not entries:
        raise ValidationFailed("At least one answer is required", fields={"body": "Empty batch"})
    if len(entries) > MAX_BATCH:
        raise ValidationFailed(f"At most {MAX_BATCH} answers per batch", fields={"body": "Too many answers"})
    a = load(attempt_id)
    authorize(p, a, token, write=True)
    s = settings()
    now = clock.now_ts()
    if a["status"] != "in_progress":
        raise already_submitted(a)
    if now > float(a["deadline_ts"]) + s.answer_grace_seconds:
        auto_submit(a["id"], "deadline")
        raise already_submitted(load(attempt_id))
    types = {o["question_id"]: (o.get("t") or "mcq") for o in a.get("order") or []}
    merged: dict[str, dict] = {}
    furthest = int(a.get("furthest_section") or 0)
    target_max = furthest
    for e in entries:
        qid = e["question_id"]
        if qid not in types:
            raise ValidationFailed("question_id is not part of this attempt", fields={"question_id": qid})
        found = paper.section_of(a, qid)
        if found:
            idx, sec = found
            why = paper.lock_reason(a, idx, sec, now, s.answer_grace_seconds)
            if why:
                raise ApiError("This section is locked", code="SECTION_LOCKED", status=403,
                               details={"section_id": sec["id"], "reason": why, "question_id": qid})
            target_max = max(target_max, idx)
        fields: dict[str, Any] = {"question_id": qid}
        if "answer" in e:
            fields["answer"] = _normalise_answer(types[qid], e["answer"])
        if e.get("marked_for_review") is not None:
            fields["marked_for_review"] = bool(e["marked_for_review"])
        if e.get("time_spent") is not None:
            fields["time_spent"] = int(e["time_spent"])
        merged[qid] = {**merged.get(qid, {}), **fields}
    if guests.needs_slot(a):
        guests.claim_slot(a, now - s.answer_grace_seconds)
    _save_confirmed(attempt_id, list(merged.values()), cutoff_ts=now - s.answer_grace_seconds)
    if target_max > furthest:
        repo.advance_section(attempt_id, target_max)
    return {"attempt_id": attempt_id, "saved": len(merged), "saved_at": clock.now_iso(),
            "remaining_seconds": paper.remaining_seconds(float(a["deadline_ts"]), now)}


def _save_confirmed(attempt_id: str, answers: list[dict], *, cutoff_ts: float) -> None:
    """Save; on a condition failure confirm its cause before acting on it (issue 23 rule 2): only
    an attempt read back as submitted, or in progress past its deadline + grace, is answered as
    submitted (auto-submitting the latter). When the read-back shows the save's condition holding
    (a refused or raced write, not a deadline), the save is tried once more, then 503 ``CONTENTION``:
    an answer is never lost to an early auto-submit."""
    for _try in range(2):
        try:
            repo.save_answers(attempt_id, answers, now_iso=clock.now_iso(), cutoff_ts=cutoff_ts)
            return
        except ConditionFailed:
            cur = load(attempt_id)
            if cur["status"] == "in_progress" and float(cur["deadline_ts"]) >= cutoff_ts:
                continue
            if cur["status"] == "in_progress":
                auto_submit(attempt_id, "deadline")
                cur = load(attempt_id)
            raise already_submitted(cur) from None
    raise Contention("The answers could not be saved, please retry", reasons=["ConditionUnconfirmed"])
