"""The permission matrix, in one table.

Keys are route keys exactly as the template declares them (``"METHOD /path"``).
Per role the cell says how far the role reaches:

* ``all``    – any record of any tenant (super admin);
* ``tenant`` – records of the caller's own client only (checked in the domain layer with
  ``ensure_same_tenant`` / ``ensure_object_tenant``);
* ``own``    – only records the caller owns (``ensure_owner``);
* ``no``     – the role may not call the route.

The guest column (no bearer token) is ``public`` (anyone), ``token`` (attempt_token),
``share`` (share-code lookup) or ``no`` (a bearer token is required: MISSING_AUTH_TOKEN).

The global middleware (``exams.http``) enforces the role and bearer parts of this table
for every route listed here before the handler runs; tenant/own cells are enforced by
the domain code. Routes not listed are guarded by their own route middlewares.
"""
from __future__ import annotations

from dataclasses import dataclass

from lambdakit.errors import ApiError

from .principal import CLIENT_ADMIN, STUDENT, SUPER_ADMIN, Principal

ALL, TENANT, OWN, NO = "all", "tenant", "own", "no"
PUBLIC, TOKEN, SHARE = "public", "token", "share"


@dataclass(frozen=True)
class Cell:
    super_admin: str
    client_admin: str
    student: str
    guest: str

    def for_role(self, role: str) -> str:
        return getattr(self, role, NO)


def _c(sa: str, ca: str, st: str, g: str = NO) -> Cell:
    return Cell(sa, ca, st, g)


SA_ONLY = _c(ALL, NO, NO)

POLICY: dict[str, Cell] = {
    # health (public)
    "GET /health": _c(ALL, ALL, ALL, PUBLIC),
    "GET /": _c(ALL, ALL, ALL, PUBLIC),
    # clients: SA only
    "GET /api/clients": SA_ONLY,
    "POST /api/clients": SA_ONLY,
    "PUT /api/clients/{clientId}": SA_ONLY,
    # tests
    "GET /api/tests": _c(ALL, TENANT, TENANT, SHARE),
    "POST /api/tests": _c(NO, TENANT, NO),
    "PUT /api/tests/{testId}": _c(NO, TENANT, NO),
    "POST /api/rpc/clone-test": _c(NO, TENANT, NO),
    "GET /api/tests/{testId}/guests": _c(ALL, TENANT, NO),
    # attempts
    "POST /api/attempts": _c(ALL, TENANT, OWN, TOKEN),
    "GET /api/attempts": _c(ALL, TENANT, OWN, TOKEN),
    "GET /api/attempts/{attemptId}": _c(ALL, TENANT, OWN, TOKEN),
    "POST /api/attempt-answers": _c(ALL, NO, OWN, TOKEN),
    "GET /api/attempt-answers/{attemptId}": _c(ALL, NO, OWN, TOKEN),
    "POST /api/rpc/submit-attempt": _c(ALL, NO, OWN, TOKEN),
    "GET /api/attempts/{attemptId}/report": _c(ALL, TENANT, OWN, TOKEN),
    "POST /api/proctoring/events": _c(ALL, NO, OWN, TOKEN),
    # super admin area and settings
    "GET /api/superadmin/subscriptions": SA_ONLY,
    "PUT /api/superadmin/subscriptions/{clientId}": SA_ONLY,
    "GET /api/superadmin/audit-logs": SA_ONLY,
    "GET /api/settings": SA_ONLY,
    "PUT /api/settings": SA_ONLY,
    # question bank
    "POST /api/questions": _c(NO, TENANT, NO),
    "POST /api/questions/import": _c(NO, TENANT, NO),
    # stats
    "GET /api/stats": _c(ALL, TENANT, NO),
    # users
    "POST /api/create-user": _c(ALL, TENANT, NO),
    "GET /api/profiles": _c(ALL, TENANT, OWN),
    "PUT /api/profiles/{profileId}": _c(ALL, TENANT, OWN),
    # billing (spec: SA for package requests; subscription requests are the CA's)
    "GET /api/subscription-requests": _c(ALL, TENANT, NO),
    "POST /api/subscription-requests": _c(NO, TENANT, NO),
    "PUT /api/subscription-requests/{requestId}/approve": SA_ONLY,
    "POST /api/packages/request": _c(NO, TENANT, NO),
    "GET /api/packages/requests": SA_ONLY,
    "PUT /api/packages/requests/{requestId}/approve": SA_ONLY,
    "GET /api/packages/available": _c(ALL, TENANT, NO),
}

_RANK = {STUDENT: 1, CLIENT_ADMIN: 2, SUPER_ADMIN: 3}


def cell(route_key: str) -> Cell | None:
    return POLICY.get(route_key)


def role_error(allowed_roles: set[str] | list[str] | tuple[str, ...], role: str) -> ApiError:
    """403 for a role that may not call a route: INSUFFICIENT_PRIVILEGES when every allowed
    role ranks above the caller's, FORBIDDEN when the role is high enough but lacks the right."""
    lowest = min((_RANK.get(r, 0) for r in allowed_roles), default=0)
    if lowest > _RANK.get(role, 0):
        return ApiError("Your role does not have sufficient privileges for this action",
                        code="INSUFFICIENT_PRIVILEGES", status=403)
    return ApiError("Your role does not have the right to perform this action", code="FORBIDDEN", status=403)


def allowed_roles(c: Cell) -> list[str]:
    return [r for r in (SUPER_ADMIN, CLIENT_ADMIN, STUDENT) if c.for_role(r) != NO]


def check(route_key: str, principal: Principal | None, *, has_identity: bool = False) -> None:
    """Enforce the role/bearer part of the matrix for ``route_key`` (no-op for unlisted routes)."""
    c = cell(route_key)
    if c is None:
        return
    if principal is None:
        if c.guest != NO:
            return
        if has_identity:  # a valid token without a profile in this service
            raise ApiError("Your account has no profile in this service", code="FORBIDDEN", status=403)
        raise ApiError("Authorization bearer token is required", code="MISSING_AUTH_TOKEN", status=401)
    if c.for_role(principal.role) == NO:
        raise role_error(allowed_roles(c), principal.role)
