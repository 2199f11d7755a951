"""API keys: creation, authentication of a bearer key, management rules.

The secret is ``ck_`` + 43 url-safe characters (256 random bits); only its SHA-256
is stored. A key carries explicit ``scopes`` or a ``role`` (expanded to the role's
scopes). A key may only create keys no wider than itself on every axis (scopes and
delete rights, plan, rate limit, IP allow-list, expiry: ``bounds``), and only revoke keys
whose scopes are a subset of its own. There is no key update route (a key is immutable:
revoke and create), so creation is the only place a key's bounds are set.
"""
from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

from lambdakit import clock, ids
from lambdakit.errors import ApiError, Conflict, NotFound, ValidationFailed
from lambdakit.http import parse_model
from lambdakit.security import random_token, sha256_hex

from ..settings import settings
from . import repository as repo
from .principal import Principal
from .scopes import allows, role_scopes

if TYPE_CHECKING:
    from .models import CreateKey

# Cold start: every protected route authenticates through this module; the key models and the
# creation bounds (pydantic classes) load only where a key is created, shown or has its own rate.

PREFIX = "ck_"


def _auth_required() -> ApiError:
    return ApiError("Authentication required: send Authorization: Bearer <API key>", code="AUTH_REQUIRED",
                    status=401)


def _invalid() -> ApiError:
    return ApiError("Invalid or expired API key", code="INVALID_TOKEN", status=401)


def _denied(msg: str = "Insufficient permissions") -> ApiError:
    return ApiError(msg, code="PERMISSION_DENIED", status=403)


def create_key(account_id: str, name: str, *, role: str | None = None, scopes=None, plan: str = "pro",
               restrictions: dict | None = None, created_by: str | None = None) -> tuple[str, dict]:
    """Validate and store a new key; returns ``(secret, public record)``."""
    from .models import CreateKey

    body = {"name": name, "role": role, "scopes": list(scopes) if scopes is not None else None, "plan": plan,
            "restrictions": restrictions}
    req: CreateKey = parse_model(CreateKey, body)
    if (req.scopes is None) == (req.role is None):
        raise ValidationFailed("Give either scopes or role", fields={"scopes": "Give either scopes or role"})
    effective = sorted(role_scopes(req.role)) if req.role else list(req.scopes or [])
    secret = PREFIX + random_token(32)
    record = {
        "account_id": account_id,
        "key_id": ids.sortable_id().lower(),
        "name": req.name,
        "prefix": secret[:10],
        "scopes": effective,
        "role": req.role,
        "plan": req.plan or "pro",
        "restrictions": (req.restrictions.model_dump() if req.restrictions else
                         {"rate_limit": None, "ip_whitelist": None, "expires_at": None}),
        "status": "active",
        "created_at": clock.now_iso(),
        "created_by": created_by,
        "revoked_at": None,
    }
    try:
        repo.put_key(record, sha256_hex(secret))
    except repo.AccountDisabled:
        raise ApiError("This account is disabled", code="ACCOUNT_DISABLED", status=403) from None
    return secret, public(record)


def public(record: dict) -> dict:
    from .views import KeyOut

    return KeyOut.model_validate(record).model_dump(mode="json")


# ---------------------------------------------------------------- authentication
def _ip_allowed(ip: str, cidrs: list[str]) -> bool:
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return False
    for c in cidrs:
        net = ipaddress.ip_network(c, strict=False)
        if addr.version == net.version and addr in net:
            return True
        if addr.version == 6 and addr.ipv4_mapped and net.version == 4 and addr.ipv4_mapped in net:
            return True
    return False


def plan_limit(record: dict) -> tuple[int, int]:
    s = settings()
    plan = record.get("plan")
    if plan == "standard":
        return s.plan_standard_per_minute, 60
    if plan == "enterprise":
        rl = (record.get("restrictions") or {}).get("rate_limit")
        if not rl:
            return s.enterprise_default_per_minute, 60
        from .models import parse_rate_limit

        return parse_rate_limit(rl)
    return s.plan_pro_per_minute, 60


def authenticate(authorization: str | None, ip: str, scope: str) -> tuple[Principal, dict[str, str]]:
    """Authenticate a request; returns the principal and the X-RateLimit-* headers."""
    if authorization is None or not authorization.strip():
        raise _auth_required()
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise _auth_required() if scheme.lower() == "bearer" else _invalid()
    if not token.startswith(PREFIX) or len(token) > 200:
        raise _invalid()
    rec = repo.get_by_hash(sha256_hex(token))  # lookup by hash of a 256-bit secret: no timing oracle
    if rec is None:
        raise _invalid()
    if rec.get("account_status") == "disabled":  # stamped by accounts.disable_account
        raise ApiError("This account is disabled", code="ACCOUNT_DISABLED", status=403)
    restrictions = rec.get("restrictions") or {}
    exp = restrictions.get("expires_at")
    if exp and clock.parse_iso(exp) <= clock.now():
        raise _invalid()
    cidrs = restrictions.get("ip_whitelist")
    if cidrs and not _ip_allowed(ip, cidrs):
        raise _denied("Request IP address is not in the key's allow-list")

    decisions = []
    if restrictions.get("rate_limit") and rec.get("plan") != "enterprise":
        from .models import parse_rate_limit

        n, window = parse_rate_limit(restrictions["rate_limit"])
        decisions.append(repo.rate_hit(f"key:{rec['key_id']}:custom", n, window))
    n, window = plan_limit(rec)
    decisions.append(repo.rate_hit(f"key:{rec['key_id']}:plan", n, window))
    denied = [d for d in decisions if not d.allowed]
    shown = max(denied, key=lambda d: d.retry_after) if denied else min(decisions, key=lambda d: d.remaining)
    headers = shown.headers()
    if denied:
        raise ApiError("Rate limit exceeded", code="RATE_LIMITED", status=429, headers=headers)

    p = Principal(account_id=rec["account_id"], key_id=rec["key_id"], name=rec.get("name", ""),
                  scopes=frozenset(rec.get("scopes") or ()), plan=rec.get("plan", "pro"), role=rec.get("role"),
                  restrictions=dict(restrictions))
    if scope != "*" and not allows(p.scopes, p.role, scope):
        raise _denied(f"This API key lacks the {scope} permission")
    return p, headers


# ---------------------------------------------------------------- management
def _may_manage(caller: Principal, scopes: list[str]) -> bool:
    return set(scopes) <= set(caller.scopes)


def create_for(caller: Principal, body: dict) -> tuple[str, dict]:
    from . import bounds
    from .models import CreateKey

    req: CreateKey = parse_model(CreateKey, body)
    if (req.scopes is None) == (req.role is None):
        raise ValidationFailed("Give either scopes or role", fields={"scopes": "Give either scopes or role"})
    wanted = sorted(role_scopes(req.role)) if req.role else list(req.scopes or [])
    plan = req.plan or caller.plan
    restrictions = req.restrictions.model_dump(exclude_none=True) if req.restrictions else {}
    wider = bounds.violations(
        {"scopes": caller.scopes, "role": caller.role, "plan": caller.plan, "restrictions": caller.restrictions},
        {"scopes": wanted, "role": req.role, "plan": plan, "restrictions": restrictions}, plan_limit)
    if wider:
        axes = list(wider)
        raise ApiError(f"A key cannot create a key wider than itself ({', '.join(axes)})", code="PERMISSION_DENIED",
                       status=403, details={"axis": axes[0], "axes": wider})
    return create_key(caller.account_id, req.name, role=req.role, scopes=req.scopes, plan=plan,
                      restrictions=restrictions or None, created_by=caller.key_id)


def list_for(caller: Principal) -> list[dict]:
    return [public(r) for r in repo.list_keys(caller.account_id)]


def get_for(caller: Principal, key_id: str) -> dict:
    rec = repo.get_key(caller.account_id, key_id)
    if rec is None:
        raise NotFound("API key not found")
    return public(rec)


def revoke_for(caller: Principal, key_id: str) -> dict:
    rec = repo.get_key(caller.account_id, key_id)
    if rec is None:
        raise NotFound("API key not found")
    if rec.get("status") != "active":
        return public(rec)  # revoking twice is a no-op
    if key_id == caller.key_id:
        # Guard against lock-out (e.g. the account's only Admin key, or a client that picked the
        # wrong id): a key is revoked by another key holding settings:write.
        raise Conflict("A key cannot revoke itself; revoke it with another Admin key",
                       details={"key_id": key_id})
    if not _may_manage(caller, rec.get("scopes") or []):
        raise _denied("A key cannot revoke a key with scopes it does not hold itself")
    now = clock.now_iso()
    repo.revoke(caller.account_id, key_id, rec["secret_hash"], now)
    return public({**rec, "status": "revoked", "revoked_at": now})
