"""Authentication and authorisation for the internship service (contract shared by three slices).

* ``Principal`` — who is calling.
* Route middlewares: ``require_user`` (any signed-in user), ``require_roles(*roles)``,
  ``require_permission(perm)``. The objects returned by the last two expose ``.roles`` /
  ``.permission`` so tests can walk every route's declared requirement.
* ``principal(app)`` — the caller inside a route (after one of the middlewares ran).
* ``caller_item(app)`` — the caller's user item as ``authenticate`` read it in this request
  (eventually consistent, like ``accounts.repository.get_user``): routes that show it need not read it again.

The access token comes from ``Authorization: Bearer`` or the ``auth-token`` cookie. A
cookie-authenticated unsafe request must pass the CSRF check (``auth.csrf``). Anonymous → 401
``{error}``; signed in without the right → 403 ``{error}``. The user item is read on every
request, so role changes and deleted/disabled accounts take effect at once, and so does a
logout or password reset (the token's ``tv`` claim must equal the user's ``token_version``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from lambdakit.errors import Forbidden, Unauthorized
from lambdakit.http import cookies, header

ACCESS_COOKIE = "auth-token"
REFRESH_COOKIE = "refresh-token"


@dataclass(frozen=True)
class Principal:
    user_id: str
    role: str
    email: str
    name: str
    permissions: frozenset[str] = field(default_factory=frozenset)

    @property
    def is_staff(self) -> bool:
        return self.role != "student"

    def has(self, permission: str) -> bool:
        return permission in self.permissions


def _token(app) -> tuple[str | None, bool]:
    auth = header(app, "authorization")
    if auth and auth[:7].lower() == "bearer ":
        return auth[7:].strip(), False
    tok = cookies(app).get(ACCESS_COOKIE)
    return (tok or None), bool(tok)


def authenticate(app) -> Principal:
    """Resolve (once per request) the caller; ``Unauthorized`` when anonymous or invalid."""
    ctx = app.context
    if isinstance(ctx.get("principal"), Principal):
        return ctx["principal"]
    from . import csrf, repository, tokens
    from .permissions import resolve

    token, via_cookie = _token(app)
    if not token:
        raise Unauthorized("Authentication required")
    claims = tokens.decode_access_token(token)
    if claims is None:
        raise Unauthorized("Invalid or expired token")
    if via_cookie and app.current_event.http_method.upper() not in csrf.SAFE_METHODS:
        csrf.check(app)
    user, override = repository.user_and_override(str(claims["sub"]), str(claims.get("role", "student")))
    if user is None or user.get("disabled"):
        raise Unauthorized("Account not found or disabled")
    if str(claims.get("tv", 0)) != str(int(user.get("token_version", 0) or 0)):
        raise Unauthorized("Token has been revoked")
    role = user.get("role", "student")
    if role != claims.get("role"):
        override = repository.role_override(role)
    p = Principal(user_id=user["id"], role=role, email=user.get("email", ""), name=user.get("name", ""),
                  permissions=resolve(role, override))
    app.append_context(principal=p, principal_item=user)
    return p


def principal(app) -> Principal:
    """The authenticated caller (the route must declare one of the auth middlewares)."""
    p = app.context.get("principal")
    if not isinstance(p, Principal):
        return authenticate(app)
    return p


def caller_item(app) -> dict:
    """The caller's user item without its key and index attributes, read by ``authenticate`` in this
    request (the route must declare one of the auth middlewares)."""
    from .repository import clean

    principal(app)
    return clean(app.context["principal_item"])


def optional_principal(app) -> Principal | None:
    """The caller when a valid token is present, else ``None`` (public routes)."""
    try:
        return authenticate(app)
    except (Unauthorized, Forbidden):
        return None


def require_user(app, next_middleware: Callable[..., Any]):
    authenticate(app)
    return next_middleware(app)


class _RequireRoles:
    def __init__(self, roles: tuple[str, ...]) -> None:
        self.roles = frozenset(roles)
        self.__name__ = "require_roles"

    def __call__(self, app, next_middleware):
        p = authenticate(app)
        if p.role not in self.roles:
            raise Forbidden("You do not have access to this resource")
        return next_middleware(app)

    def __repr__(self) -> str:
        return f"require_roles({', '.join(sorted(self.roles))})"


class _RequirePermission:
    def __init__(self, permission: str) -> None:
        from .permissions import PERMISSIONS

        if permission not in PERMISSIONS:
            raise ValueError(f"unknown permission {permission!r}")
        self.permission = permission
        self.__name__ = "require_permission"

    def __call__(self, app, next_middleware):
        p = authenticate(app)
        if p.role == "student" or permission_missing(p, self.permission):
            raise Forbidden("You do not have permission to perform this action")
        return next_middleware(app)

    def __repr__(self) -> str:
        return f"require_permission({self.permission})"


def permission_missing(p: Principal, permission: str) -> bool:
    return permission not in p.permissions


def require_roles(*roles: str) -> _RequireRoles:
    return _RequireRoles(roles)


def require_permission(permission: str) -> _RequirePermission:
    return _RequirePermission(permission)


def require_staff(app, next_middleware: Callable[..., Any]):
    """Any staff role (not a student)."""
    p = authenticate(app)
    if not p.is_staff:
        raise Forbidden("You do not have access to this resource")
    return next_middleware(app)
