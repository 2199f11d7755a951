"""Who the caller is: ID-token verification, principals, roles, tenancy checks, the policy table.

Handlers use the route middlewares ``require(*roles)`` and ``optional_auth`` and read the
caller with ``principal(app)``. Domain code checks tenancy with ``ensure_same_tenant``,
``ensure_object_tenant``, ``ensure_owner``, ``ensure_self`` (a student naming a principal) and
``tenant_student`` (a student named in a path, body or query). Another tenant's data is 403
``BOLA_VIOLATION``/``TENANT_MISMATCH`` (spec rule 6); only ids that exist nowhere are 404. The service-wide middleware in ``exams.http`` verifies the token once per
request and stores the result in ``app.context``.
"""
from __future__ import annotations

from typing import Any, Callable

from lambdakit.errors import ApiError

from .authn import AuthState
from .members import ensure_self, student_not_found, tenant_student
from .policy import role_error
from .principal import CLIENT_ADMIN, ROLES, STUDENT, SUPER_ADMIN, Identity, Principal
from .tenancy import ensure_object_tenant, ensure_owner, ensure_same_tenant, forbidden, tenant_scope

CONTEXT_KEY = "exams.auth"

__all__ = [
    "Principal", "Identity", "SUPER_ADMIN", "CLIENT_ADMIN", "STUDENT", "ROLES",
    "require", "optional_auth", "principal", "signed_in", "identity", "auth_state",
    "ensure_same_tenant", "ensure_object_tenant", "ensure_owner", "tenant_scope", "forbidden",
    "tenant_student", "student_not_found", "ensure_self",
]


def auth_state(app: Any) -> AuthState:
    state = app.context.get(CONTEXT_KEY)
    if state is None:  # the service middleware always sets it; be safe if it did not run
        raise ApiError("Authentication was not processed", code="SERVER_ERROR", status=500)
    return state


def principal(app: Any) -> Principal | None:
    state = app.context.get(CONTEXT_KEY)
    return state.principal if state else None


def signed_in(app: Any) -> Principal:
    """The caller of a route guarded by ``require(...)``: never ``None`` there (the middleware
    answered 401/403 already); the check keeps that guarantee explicit for the type checker."""
    p = principal(app)
    if p is None:
        raise ApiError("Authorization bearer token is required", code="MISSING_AUTH_TOKEN", status=401)
    return p


def identity(app: Any) -> Identity | None:
    """The verified identity (also for a valid token without a profile, e.g. anonymous guests)."""
    state = app.context.get(CONTEXT_KEY)
    return state.identity if state else None


def require(*roles: str) -> Callable:
    """Route middleware: a bearer ID token is required and the caller's role must be in ``roles``."""
    unknown = set(roles) - set(ROLES)
    if unknown or not roles:
        raise ValueError(f"bad roles: {roles}")

    def require_roles(app: Any, next_middleware: Callable) -> Any:
        state = auth_state(app)
        p = state.principal
        if p is None:
            if state.identity is not None:
                raise ApiError("Your account has no profile in this service", code="FORBIDDEN", status=403)
            raise ApiError("Authorization bearer token is required", code="MISSING_AUTH_TOKEN", status=401)
        if p.role not in roles:
            raise role_error(roles, p.role)
        return next_middleware(app)

    require_roles.__name__ = f"require_{'_'.join(roles)}"
    return require_roles


def optional_auth(app: Any, next_middleware: Callable) -> Any:
    """Route middleware for guest-capable routes: ``principal(app)`` is ``None`` without an
    Authorization header; a present but bad token has already failed (401) in the service middleware."""
    auth_state(app)
    return next_middleware(app)
