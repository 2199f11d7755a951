"""Guest policy (docs/exams-delivery.md, "Guests"): who a guest is, how fast guests may start,
when a guest takes a candidate slot, and the owner's list of a test's guests.

* Identity: ``sha256(test_id, guest token, client IP, User-Agent)``. The guest token is a random
  value the service issues on the first start (body ``guest_token`` and cookie ``exam_guest``); the
  client sends it back (``X-Guest-Token`` header or the cookie). Per identity: one attempt in
  progress at a time and ``attempts_allowed`` (candidate item ``TEST#<test> / CAND#guest:<fp>``,
  conditional writes in the start transaction).
* Start rates: per share code per client IP (hashed) and per share code (atomic counters).
* Candidate slots: a guest identity takes one when one of its attempts saves its first answer
  (a transaction: attempt flag + candidate flag + ``candidate_count < max_candidates``), so
  attempts that never answer cannot exhaust a test's capacity.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from lambdakit.errors import ApiError, ConditionFailed, NotFound, ValidationFailed
from lambdakit.ratelimit import parse_rate
from lambdakit.security import random_token, sha256_hex

from ..identity import Principal, ensure_object_tenant
from ..papers import service as papers
from ..settings import settings
from . import repository as repo

TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{22,128}$")
COOKIE = "exam_guest"
COOKIE_MAX_AGE = 30 * 86400


@dataclass(frozen=True)
class GuestClient:
    """What the HTTP layer knows about an anonymous caller."""
    token: str | None
    ip: str
    user_agent: str


@dataclass(frozen=True)
class GuestIdentity:
    fingerprint: str
    token: str
    issued: bool  # the token was issued by this request

    @property
    def candidate_id(self) -> str:
        return f"guest:{self.fingerprint}"


def identify(test_id: str, client: GuestClient) -> GuestIdentity:
    token, issued = client.token, False
    if token is None or token == "":
        token, issued = random_token(32), True
    elif not TOKEN_RE.match(token):
        raise ValidationFailed("The guest token is malformed",
                               fields={"x-guest-token": "Send back the guest_token issued on a previous start"})
    fp = sha256_hex("\n".join((test_id, token, client.ip, client.user_agent[:512])))[:40]
    return GuestIdentity(fp, token, issued)


def cookie(token: str) -> str:
    return (f"{COOKIE}={token}; Path=/api/attempts; Max-Age={COOKIE_MAX_AGE}; HttpOnly; Secure; "
            "SameSite=Strict")


def check_rates(test_id: str, ip: str) -> None:
    """Per share code per IP first (so one client's refused starts never use up the share code's
    budget), then per share code. 429 RATE_LIMITED with ``details.scope``."""
    s = settings()
    checks = (("share_code_ip", f"guest-start-ip:{test_id}:{sha256_hex(ip)[:32]}", s.guest_start_ip_rate),
              ("share_code", f"guest-start:{test_id}", s.guest_start_rate))
    for scope, subject, spec in checks:
        limit, window = parse_rate(spec)
        d = repo.rate_hit(subject, limit, window)
        if not d.allowed:
            raise ApiError("Too many guest starts for this test; retry later", code="RATE_LIMITED", status=429,
                           details={"scope": scope, "retry_after": d.retry_after, "limit": limit, "window": window},
                           headers={"Retry-After": str(d.retry_after)})


def in_progress(open_attempt: dict) -> ApiError:
    return ApiError("This guest already has an attempt in progress for this test", code="GUEST_ATTEMPT_IN_PROGRESS",
                    status=409, details={"attempt_id": open_attempt["id"], "deadline": open_attempt.get("deadline")})


def capacity(max_c: int | str) -> ApiError:
    return ApiError("This test has reached its candidate capacity", code="CANDIDATE_CAPACITY_REACHED", status=403,
                    details={"max_candidates": int(max_c)})


# ------------------------------------------------------------------ candidate slot on the first answer
def needs_slot(a: dict) -> bool:
    """A guest attempt without its slot yet. Guest attempts started before this policy (candidate id
    ``guest:<attempt id>``) had their slot counted at start."""
    return bool(a.get("is_guest")) and not a.get("slot") and a.get("candidate_id") != f"guest:{a['id']}"


def claim_slot(a: dict, cutoff_ts: float) -> None:
    """Take the guest identity's candidate slot (once per identity) when its attempt saves its first
    answer; capacity is a condition of the same transaction. No-op once the attempt has it."""
    for _ in range(3):
        if a.get("slot"):
            return
        cand = repo.candidate(a["test_id"], a["candidate_id"]) or {}
        max_c = a.get("max_candidates")
        try:
            repo.claim_slot(a, identity_has_slot=bool(cand.get("slot")), cutoff_ts=cutoff_ts,
                            max_candidates=int(max_c) if max_c else None)
            return
        except ConditionFailed as exc:
            reasons = exc.reasons or []
            if len(reasons) > 2 and reasons[2] == "ConditionalCheckFailed":
                raise capacity(max_c or 0) from None
        a = repo.get(a["id"]) or a
        if a.get("status") != "in_progress" or float(a["deadline_ts"]) < cutoff_ts:
            return  # the answer save that follows submits / reports the submission (409)
    raise ApiError("Could not save the answer; retry", code="CONFLICT", status=409)


# ------------------------------------------------------------------ owner's view
def list_guests(p: Principal, test_id: str, *, page: int, limit: int, cursor: str | None
                ) -> tuple[list[dict], int, str | None]:
    """Guests of a test (client admin of its tenant, super admin), newest identity last."""
    _, t = papers.key_and_test(test_id)
    if not t or t.get("deleted_at"):
        raise NotFound("Test not found", code="TEST_NOT_FOUND", details={"resource_type": "test", "resource_id": test_id})
    ensure_object_tenant(p, t["client_id"])
    items, nxt = repo.page_guests(test_id, page=page, limit=limit, cursor=cursor)
    out = [{"guest_id": i["sk"].removeprefix("CAND#guest:"), "guest_name": i.get("guest_name"),
            "attempts": int(i.get("n") or 0), "counts_as_candidate": bool(i.get("slot")),
            "first_started_at": i.get("first_started_at"), "last_started_at": i.get("last_started_at"),
            "last_attempt_id": i.get("last_attempt_id")} for i in items]
    return out, int(repo.count("TATT", test_id).get("guests") or 0), nxt
