"""Authentication of one request (domain side): token → identity → profile → principal,
plus the authentication audit entries."""
from __future__ import annotations

from dataclasses import dataclass

from lambdakit.errors import ApiError

from ..audit import writer as audit
from . import repository as repo
from .principal import ROLES, Identity, Principal
from .tokens import TokenRejected, verify


@dataclass(frozen=True)
class AuthState:
    token_present: bool
    identity: Identity | None = None
    principal: Principal | None = None


def verify_token(token: str | None) -> tuple[Identity | None, TokenRejected | None]:
    """Verify a bearer token without raising token errors (the caller decides when)."""
    if not token:
        return None, None
    try:
        return verify(token), None
    except TokenRejected as exc:
        return None, exc


def reject(err: TokenRejected, ip: str | None) -> ApiError:
    audit.auth_event("token_rejected", user_id=None, ip_address=ip, success=False,
                     reason=f"{err.code}:{err.reason}")
    return err


def principal_for(ident: Identity, ip: str | None, *, also: tuple[tuple[str, str], ...] = ()
                  ) -> tuple[Principal | None, dict[tuple[str, str], dict]]:
    """The profile behind a verified identity (``None``: a valid identity unknown to this
    service, e.g. an anonymous guest sign-in). Writes the ``login`` audit entry once per sign-in.

    One BatchGetItem reads the profile, the sign-in's login marker (a marker found: its entry is
    written, no write is tried) and the items ``also`` (returned as ``{key: item found}``)."""
    auth_time = ident.auth_time if ident.auth_time is not None else ident.issued_at
    marker = audit.login_marker(ident.user_id, auth_time)
    profile, items = repo.get_profile_with(ident.user_id, [*also, *([marker] if marker else [])])
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
