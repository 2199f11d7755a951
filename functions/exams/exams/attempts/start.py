"""Starting an attempt: students (their own, or on their behalf by an admin of the test's tenant)
and guests (share code; identity, rates and slots in ``guests``). Every start rule that other
requests could race is a condition of the start transaction."""
from __future__ import annotations

import secrets
from typing import Any

from lambdakit import clock, ids
from lambdakit.errors import ApiError, ConditionFailed, NotFound, ValidationFailed
from lambdakit.observability import count
from lambdakit.security import random_token, sha256_hex

from ..identity import Principal, ensure_object_tenant, ensure_self, tenant_student
from ..papers import repository as trepo
from ..papers import service as papers
from ..settings import settings
from . import guests, paper
from . import repository as repo
from .submission import auto_submit
from .views import present

#: A guest who gives no ``guest_name`` (the spec's start body is test_id, student_id: the name is an
#: optional addition of this service).
GUEST_NAME = "Guest"


def _window_check(t: dict, now_ts: float) -> None:
    start, end = t.get("scheduled_start"), t.get("scheduled_end")
    if (start and now_ts < clock.parse_iso(start).timestamp()) or (end and now_ts > clock.parse_iso(end).timestamp()):
        raise ApiError("The test is not open at this time", code="OUTSIDE_SCHEDULED_WINDOW", status=400,
                       details={"scheduled_start": start, "scheduled_end": end, "current_time": clock.now_iso(),
                                "timezone": t.get("timezone")})


def _test_by_share_code(code: Any) -> str:
    c = str(code).strip().upper()
    ref = trepo.by_share_code(c) if papers.SHARE_RE.match(c) else None
    if not ref:
        raise NotFound("Unknown share code", code="INVALID_SHARE_CODE")
    return ref["test_id"]


def acting_student(p: Principal, client_id: str, student_id: str | None) -> str:
    """Whose attempt a signed-in caller starts. A student: only their own (403 IDOR_VIOLATION).
    An admin acts for a student and must name one that is a student of the test's tenant
    (404 STUDENT_NOT_FOUND for an unknown id or a non-student; another tenant's student is 403
    BOLA_VIOLATION, TENANT_MISMATCH for a super admin pairing it with this test)."""
    if p.is_student:
        sid = student_id or p.user_id
        ensure_self(p, sid)
        return sid
    if not student_id:
        raise ValidationFailed("student_id is required when an administrator starts an attempt",
                               fields={"student_id": "Required for administrators"})
    tenant_student(student_id, client_id, mismatch="TENANT_MISMATCH" if p.is_super_admin else "BOLA_VIOLATION")
    return student_id


def _guest_open_attempt(cand: dict | None) -> None:
    """One guest attempt in progress per identity: an open one refuses the start (409), an
    overdue one is submitted now (the next-touch rule) and the start goes on."""
    last = (cand or {}).get("last_attempt_id")
    a = repo.get(last) if last else None
    if not a or a.get("status") != "in_progress":
        return
    if clock.now_ts() > float(a["deadline_ts"]) + settings().answer_grace_seconds:
        auto_submit(a["id"], "deadline")
        return
    raise guests.in_progress(a)


def start(p: Principal | None, body: dict[str, Any], client: guests.GuestClient | None = None) -> dict:
    guest = p is None
    name = ""
    ident: guests.GuestIdentity | None = None
    if guest:
        code, name = body.get("share_code"), (body.get("guest_name") or "").strip() or GUEST_NAME
        if not code:
            raise ValidationFailed("share_code is required for guests", fields={"share_code": "Required"})
        test_id = _test_by_share_code(code)
        if body.get("test_id") and str(body["test_id"]) != test_id:
            raise ValidationFailed("test_id does not match the share code",
                                   fields={"test_id": "Not the test of this share code"})
    else:
        given = body.get("test_id") or (_test_by_share_code(body["share_code"]) if body.get("share_code") else None)
        if not given:
            raise ValidationFailed("test_id is required", fields={"test_id": "Required"})
        test_id = str(given)
    key_item, t = papers.key_and_test(str(test_id))
    if not t or t.get("deleted_at"):
        raise papers.test_not_found(str(test_id))
    student_id = None
    if p is not None:
        ensure_object_tenant(p, t["client_id"])
        student_id = acting_student(p, t["client_id"], body.get("student_id"))
    # start checks, in the order
    if t["status"] == "draft":
        raise ApiError("The test is not published", code="TEST_NOT_PUBLISHED", status=400)
    if t["status"] != "published" or not int(t.get("active_status", 1)) or not key_item:
        raise ApiError("The test is not active", code="TEST_NOT_ACTIVE", status=400)
    if guest and not t.get("allow_guests"):
        raise ApiError("This test does not allow guests", code="GUEST_ACCESS_NOT_ALLOWED", status=403)
    now_ts = clock.now_ts()
    _window_check(t, now_ts)
    if guest:
        ident = guests.identify(t["id"], client or guests.GuestClient(None, "0.0.0.0", ""))
        guests.check_rates(t["id"], (client.ip if client else "0.0.0.0"))
    attempt_id = ids.new_id()
    candidate_id = ident.candidate_id if ident else str(student_id)
    allowed = int(t.get("attempts_allowed") or 0)
    cand = repo.candidate(t["id"], candidate_id)
    if guest:
        _guest_open_attempt(cand)
    used = int((cand or {}).get("n") or 0)
    if allowed and used >= allowed:
        raise ApiError("You have used all your attempts for this test", code="ATTEMPT_LIMIT_EXCEEDED", status=400,
                       details={"allowed_attempts": allowed, "current_attempts": used})
    max_c = t.get("max_candidates")
    new_candidate = cand is None
    has_slot = (not new_candidate) if not guest else bool((cand or {}).get("slot"))
    if max_c and not has_slot and int(t.get("candidate_count") or 0) >= int(max_c):
        raise guests.capacity(max_c)
    keys = key_item["keys"]
    sections, order = paper.build_attempt_paper(t, {q: k["t"] for q, k in keys.items()})
    for o in order:
        o["t"] = keys[o["question_id"]]["t"]
    duration = paper.total_seconds(t)
    deadline_ts = now_ts + duration
    if t.get("scheduled_end"):
        deadline_ts = min(deadline_ts, clock.parse_iso(t["scheduled_end"]).timestamp())
    token = random_token(32) if guest else None
    now_iso = clock.now_iso()
    a = {
        "id": attempt_id, "test_id": t["id"], "client_id": t["client_id"], "student_id": student_id,
        "candidate_id": candidate_id, "is_guest": guest, "guest_name": name if guest else None,
        "token_hash": sha256_hex(token) if token else None, "status": "in_progress",
        "started_at": now_iso, "started_ts": now_ts, "deadline_ts": deadline_ts,
        "deadline": paper.iso_at(deadline_ts), "duration_seconds": duration,
        "sections": sections, "order": order, "furthest_section": 0, "risk_score": 0, "event_count": 0,
        "attempt_number": used + 1, "test_name": papers.for_attempt(t).test_name,  # kept for the lists
        "started_by": None if p is None else p.user_id,
        "max_candidates": int(max_c) if guest and max_c else None,
    }
    a = {k: v for k, v in a.items() if v is not None}
    from ..stats import counters

    try:
        repo.start(a, test=t, cand_count=used, new_candidate=new_candidate, allowed=allowed,
                   max_candidates=int(max_c) if max_c and not guest else None,
                   shard=secrets.randbelow(settings().sweep_shards),
                   cand_set={"guest_name": name, "last_started_at": now_iso} if guest else None,
                   cand_first={"first_started_at": now_iso} if guest else None)
    except ConditionFailed as exc:
        raise _start_conflict(exc, t, allowed, used, guest) from None
    counters.bump(t["client_id"], attempts=1)
    count("AttemptsStarted")
    if guest:
        count("GuestAttempts")
    from ..audit.writer import record

    record("attempt.start", "attempt", attempt_id, user_id=p.user_id if p else None, client_id=t["client_id"],
           metadata={"test_id": t["id"], "guest": guest})
    from lambdakit.model import dump

    from .models import AttemptStartView

    out = {**present(a, t, p), **papers.for_attempt(t).model_dump(), "attempt_token": token}
    if ident:
        out["guest_token"] = ident.token
    return dump(AttemptStartView, out, exclude_unset=True)


def _start_conflict(exc: ConditionFailed, t: dict, allowed: int, used: int, guest: bool) -> ApiError:
    reasons = exc.reasons or []
    if len(reasons) > 2 and reasons[2] == "ConditionalCheckFailed":
        cur = papers.key_and_test(t["id"])[1] or t
        if cur.get("status") != "published":
            return ApiError("The test is not active", code="TEST_NOT_ACTIVE", status=400)
        return guests.capacity(t.get("max_candidates") or 0)
    if len(reasons) > 1 and reasons[1] == "ConditionalCheckFailed":
        if allowed and (not guest or used + 1 >= allowed):
            return ApiError("You have used all your attempts for this test", code="ATTEMPT_LIMIT_EXCEEDED",
                            status=400, details={"allowed_attempts": allowed, "current_attempts": used + 1})
        if guest:  # a concurrent start of the same guest identity won
            return ApiError("This guest already has an attempt in progress for this test",
                            code="GUEST_ATTEMPT_IN_PROGRESS", status=409, details={})
        return ApiError("Another attempt was started at the same time; retry", code="CONFLICT", status=409)
    return ApiError("Could not start the attempt; retry", code="CONFLICT", status=409)
