"""Authentication and authorisation for the internship service (contract shared by three slices).

* ``Principal`` — who is calling.
* Route middlewares: ``require_user`` (any signed-in user), ``require_roles(*roles)``,
  ``require_permission(perm)``. The objects returned by the last two expose ``.roles`` /
  ``.permission`` so tests can walk every route's declared requirement.
* ``principal(app)`` — the caller inside a route (after one of the middlewares ran).
* ``caller_item(app)`` — the caller's user item as ``authenticate`` read it in this request
  (eventually consistent, like ``accounts.repository.get_user``): routes that show it need not read it again.
* ``Reads`` / ``read_with_auth(app)`` — a route whose first read is a key read with a key known
  before authentication (path, query) declares it on its middleware (``require_user_reading``,
  ``require_roles(..., reads=)``, ``require_permission(..., reads=)``): those items are read in
  authentication's BatchGetItem, one round trip fewer. They reach the route only through
  ``read_with_auth``, after authentication and the middleware's authorisation succeeded; a
  caller refused gets exactly the error it got without them, and nothing read is returned.

The access token comes from ``Authorization: Bearer`` or the ``auth-token`` cookie. A
cookie-authenticated unsafe request must pass the CSRF check (``auth.csrf``). Anonymous → 401
``{error}``; signed in without the right → 403 ``{error}``. The user item is read on every
request, so role changes and deleted/disabled accounts take effect at once, and so does a
logout or password reset (the token's ``tv`` claim must equal the user's ``token_version``).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from lambdakit.errors import Forbidden, Unauthorized
from lambdakit.http import cookies, header

ACCESS_COOKIE = "auth-token"
REFRESH_COOKIE = "refresh-token"

Key = tuple[str, str]


@dataclass(frozen=True)
class Reads:
    """Items read with the caller's user item: ``keys(app)`` gives their keys from the request
    (path, query; it validates what it uses as the route's repository would and gives nothing for
    an invalid request, which then reads as before). ``consistent``: the route's read is strongly
    consistent, so the whole batch is (a consistent read of the user item is one an eventually
    consistent read may also return)."""
    keys: Callable[[Any], Iterable[Key]]
    consistent: bool = False


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


def route_arg(app, name: str) -> str | None:
    """A path parameter of the matched route, as the route function will receive it (for ``Reads.keys``)."""
    value = (app.context.get("_route_args") or {}).get(name)
    return value if isinstance(value, str) else None


def authenticate(app, reads: Reads | None = None) -> Principal:
    """Resolve (once per request) the caller; ``Unauthorized`` when anonymous or invalid. ``reads``:
    items read in the same BatchGetItem as the user item (``read_with_auth``)."""
    ctx = app.context
    if isinstance(ctx.get("principal"), Principal):
        return ctx["principal"]
    from . import csrf, repository, tokens
    from .permissions import resolve

    token, via_cookie = _token(app)
    if not token:
        raise Unauthorized("Authentication required")
    if len(token) <= tokens.MAX_TOKEN_LENGTH and tokens.prefetch_signing_key():
        # a cold Lambda process: the key's round trip overlaps creating the DynamoDB client
        repository.warm()
    claims = tokens.decode_access_token(token)
    if claims is None:
        raise Unauthorized("Invalid or expired token")
    if via_cookie and app.current_event.http_method.upper() not in csrf.SAFE_METHODS:
        csrf.check(app)
    also = list(reads.keys(app)) if reads is not None else []
    user, override, read = repository.user_and_override(str(claims["sub"]), str(claims.get("role", "student")),
                                                        also, consistent=bool(reads and reads.consistent))
    if user is None or user.get("disabled"):
        raise Unauthorized("Account not found or disabled")
    if str(claims.get("tv", 0)) != str(int(user.get("token_version", 0) or 0)):
        raise Unauthorized("Token has been revoked")
    role = user.get("role", "student")
    if role != claims.get("role"):
        override = repository.role_override(role)
    p = Principal(user_id=user["id"], role=role, email=user.get("email", ""), name=user.get("name", ""),
                  permissions=resolve(role, override))
    app.append_context(principal=p, principal_item=user, read_with_auth=read)
    return p


def read_with_auth(app) -> Mapping[Key, dict | None]:
    """The items the route's middleware had read with authentication in this request, by key (``None``:
    no such item; a key absent: not read, the route reads it itself). Raw items, key attributes included."""
    return app.context.get("read_with_auth") or {}


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


class _RequireUserReading:
    def __init__(self, reads: Reads) -> None:
        self.reads = reads
        self.__name__ = "require_user"

    def __call__(self, app, next_middleware):
        authenticate(app, self.reads)
        return next_middleware(app)

    def __repr__(self) -> str:
        return "require_user"


def require_user_reading(reads: Reads) -> _RequireUserReading:
    """``require_user`` whose authentication also reads ``reads``."""
    return _RequireUserReading(reads)


class _RequireRoles:
    def __init__(self, roles: tuple[str, ...], reads: Reads | None = None) -> None:
        self.roles = frozenset(roles)
        self.reads = reads
        self.__name__ = "require_roles"

    def __call__(self, app, next_middleware):
        p = authenticate(app, self.reads)
        if p.role not in self.roles:
            raise Forbidden("You do not have access to this resource")
        return next_middleware(app)

    def __repr__(self) -> str:
        return f"require_roles({', '.join(sorted(self.roles))})"


class _RequirePermission:
    def __init__(self, permission: str, reads: Reads | None = None) -> None:
        from .permissions import PERMISSIONS

        if permission not in PERMISSIONS:
            raise ValueError(f"unknown permission {permission!r}")
        self.permission = permission
        self.reads = reads
        self.__name__ = "require_permission"

    def __call__(self, app, next_middleware):
        p = authenticate(app, self.reads)
        if p.role == "student" or permission_missing(p, self.permission):
            raise Forbidden("You do not have permission to perform this action")
        return next_middleware(app)

    def __repr__(self) -> str:
        return f"require_permission({self.permission})"


def permission_missing(p: Principal, permission: str) -> bool:
    return permission not in p.permissions


def require_roles(*roles: str, reads: Reads | None = None) -> _RequireRoles:
    return _RequireRoles(roles, reads)


def require_permission(permission: str, reads: Reads | None = None) -> _RequirePermission:
    return _RequirePermission(permission, reads)


def require_staff(app, next_middleware: Callable[..., Any]):
    """Any staff role (not a student)."""
    p = authenticate(app)
    if not p.is_staff:
        raise Forbidden("You do not have access to this resource")
    return next_middleware(app)
