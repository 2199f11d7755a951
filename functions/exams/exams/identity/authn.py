"""Authentication of one request (domain side): token → identity → profile → principal,
plus the authentication audit entries."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lambdakit.errors import ApiError

from ..audit import writer as audit
from . import jwks
from . import repository as repo
from .principal import ROLES, Identity, Principal
from .tokens import TokenRejected, Unverified, precheck, verify


@dataclass(frozen=True)
class AuthState:
    token_present: bool
    identity: Identity | None = None
    principal: Principal | None = None


@dataclass(frozen=True)
class Prefetched:
    """Items read with the stored key set before the token was verified (a process whose key set
    could not answer): handed out only with the identity of a token that then verified, and used
    by ``principal_for`` only when they are the very keys it would read (same user, same login
    marker, every ``also`` key)."""

    user_id: str
    keys: frozenset[tuple[str, str]]
    profile: dict | None
    items: dict[tuple[str, str], dict]


Key = tuple[str, str]
#: the keys a route reads with authentication, from the user id of the token (``identity.reads``)
RouteKeys = Callable[[str], tuple[Key, ...]]


def verify_token(token: str | None, *, also: tuple[Key, ...] = (), route: RouteKeys | None = None,
                 consistent: bool = False) -> tuple[Identity | None, TokenRejected | None, Prefetched | None]:
    """Verify a bearer token without raising token errors (the caller decides when).

    When this process holds no usable key set (a cold start), the stored key set is read in one
    BatchGetItem with what ``principal_for`` will need: the profile and login marker of the user
    the token names, the items ``also`` and ``route(user id)`` (strongly consistent: ``consistent``).
    Those items are returned only when the token then verifies (signature included) with that very
    user id; for a rejected token they are dropped unread."""
    if not token:
        return None, None, None
    prefetched = None
    try:
        pre = precheck(token)
        if jwks.needs_item():
            prefetched = _read_with_key_set(pre, also, route, consistent)
        ident = verify(token, pre)
    except TokenRejected as exc:
        return None, exc, None
    if prefetched is not None and prefetched.user_id != ident.user_id:
        prefetched = None  # cannot happen (same claims), but never hand out another user's items
    return ident, None, prefetched


def _read_with_key_set(pre: Unverified, also: tuple[Key, ...], route: RouteKeys | None,
                       consistent: bool) -> Prefetched | None:
    jwks_key = jwks.item_key()
    uid = pre.user_id()
    if uid is None:  # the token will be refused ("subject"): only the key set is worth reading
        jwks.load_item(repo.table().get(*jwks_key))
        return None
    marker = audit.login_marker(uid, pre.auth_time())
    others = [*also, *(route(uid) if route else ()), *([marker] if marker else [])]
    profile, items = repo.get_profile_with(uid, [*others, jwks_key], consistent=consistent)
    jwks.load_item(items.pop(jwks_key, None))
    return Prefetched(user_id=uid, keys=frozenset(others), profile=profile, items=items)


def reject(err: TokenRejected, ip: str | None) -> ApiError:
    audit.auth_event("token_rejected", user_id=None, ip_address=ip, success=False,
                     reason=f"{err.code}:{err.reason}")
    return err


def principal_for(ident: Identity, ip: str | None, *, also: tuple[Key, ...] = (), route: RouteKeys | None = None,
                  consistent: bool = False, prefetched: Prefetched | None = None
                  ) -> tuple[Principal | None, dict[Key, dict]]:
    """The profile behind a verified identity (``None``: a valid identity unknown to this
    service, e.g. an anonymous guest sign-in). Writes the ``login`` audit entry once per sign-in.

    One BatchGetItem reads the profile, the sign-in's login marker (a marker found: its entry is
    written, no write is tried), the items ``also`` and ``route(user id)`` (returned as ``{key: item
    found}``; the profile too when ``route`` names its key), strongly consistent when ``consistent``;
    ``prefetched`` (``verify_token``'s, read with the key set): no read when it holds exactly these keys."""
    auth_time = ident.auth_time if ident.auth_time is not None else ident.issued_at
    marker = audit.login_marker(ident.user_id, auth_time)
    routed = route(ident.user_id) if route else ()
    others = [*also, *routed, *([marker] if marker else [])]
    if prefetched is not None and prefetched.user_id == ident.user_id and prefetched.keys == frozenset(others):
        profile, items = prefetched.profile, dict(prefetched.items)
    else:
        profile, items = repo.get_profile_with(ident.user_id, others, consistent=consistent)
    profile_key = repo.profile_key(ident.user_id)
    if profile is not None and profile_key in routed:
        items[profile_key] = profile
    if marker and items.pop(marker, None) is not None:
        audit.login_recorded(ident.user_id, auth_time)
    audit.auth_event("login", user_id=ident.user_id, ip_address=ip, success=True, auth_time=auth_time)
    if not profile:
        return None, items
    if int(profile.get("active_status", 1)) != 1:
        raise ApiError("This account is disabled", code="FORBIDDEN", status=403)
    role = profile.get("role")
    if role not in ROLES:
        raise ApiError("This account has no valid role", code="FORBIDDEN", status=403)
    return Principal(user_id=ident.user_id, role=role, client_id=profile.get("client_id"),
                     email=profile.get("email") or ident.email or "", name=profile.get("name") or ""), items
