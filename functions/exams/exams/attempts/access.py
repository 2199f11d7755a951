"""Access to one attempt: loading it, who may read or write it (guest token, owner, tenant
admin, super admin), and the errors every attempt route shares."""
from __future__ import annotations

from collections.abc import Mapping

from lambdakit.errors import ApiError, NotFound
from lambdakit.security import constant_time_equals, sha256_hex

from ..identity import Principal, ensure_object_tenant
from ..store import strip_keys
from . import repository as repo


def not_found(attempt_id: str) -> ApiError:
    return NotFound("Attempt not found", code="ATTEMPT_NOT_FOUND",
                    details={"resource_type": "attempt", "resource_id": attempt_id})


def token_invalid() -> ApiError:
    return ApiError("Attempt token is missing or invalid", code="ATTEMPT_TOKEN_INVALID", status=403)


def missing_auth(guest_credential: str = "a guest's attempt_token") -> ApiError:
    """No credential at all (spec: MISSING_AUTH_TOKEN 401 "No bearer header"): neither a bearer token
    nor the guest's credential (the attempt token; the share code to start)."""
    return ApiError(f"Authorization bearer token (or {guest_credential}) is required",
                    code="MISSING_AUTH_TOKEN", status=401)


def already_submitted(a: dict) -> ApiError:
    return ApiError("This attempt has already been submitted", code="DUPLICATE_ANSWER_SUBMISSION", status=409,
                    details={"attempt_id": a["id"], "submitted_at": a.get("submitted_at"),
                             "reason": a.get("submit_reason")})


def authorize(p: Principal | None, a: dict, token: str | None, *, write: bool = False) -> None:
    """Guests: the attempt token (constant-time hash comparison; missing or wrong: 403
    ATTEMPT_TOKEN_INVALID). Students: their own attempts (no bearer token and no attempt token:
    401 MISSING_AUTH_TOKEN). Client admins: their tenant's attempts, read-only. Super admins:
    everything."""
    if a.get("is_guest") and (p is None or token):
        if not token or not constant_time_equals(sha256_hex(token), a.get("token_hash") or ""):
            raise token_invalid()
        return
    if p is None:  # a student's attempt: its owner signs in (no token either: nothing was presented)
        raise token_invalid() if token else missing_auth()
    if p.is_super_admin:
        return
    ensure_object_tenant(p, a.get("client_id"))
    if p.is_client_admin:
        if write:
            raise ApiError("Client admins cannot answer or submit attempts", code="FORBIDDEN", status=403)
        return
    if a.get("student_id") != p.user_id:
        raise ApiError("This attempt belongs to another student", code="ATTEMPT_NOT_OWNER", status=403)


def load(attempt_id: str, *, have: Mapping[tuple[str, str], dict | None] | None = None) -> dict:
    """The attempt (strongly consistent); ``have``: items read with authentication in this request
    (``identity.reads``, a strongly consistent batch), by key (``None``: no such item)."""
    key = repo.attempt_key(attempt_id)
    a = strip_keys(have[key]) if have is not None and key in have else repo.get(attempt_id)
    if not a:
        raise not_found(attempt_id)
    return a
