"""The internships OpenAPI document's security (imported by ``make openapi`` and the local front's
``/openapi.json``, never by a Lambda function).

Read off each route's own guard, so the document cannot drift from the code: a route with one of
``internships.auth``'s middlewares (``require_user``, ``require_user_reading``, ``require_roles``,
``require_permission``) takes the access token as a bearer token or in the ``auth-token`` cookie
(a cookie-authenticated write also needs the CSRF header, see docs/internships-architecture.md); a
cron route (``internships.cron.handler``) the cron secret; a route without an auth middleware
whose function reads the refresh cookie (``REFRESH_COOKIE``: the token refresh) that cookie; any
other route with no middleware is public.
"""
from __future__ import annotations

from typing import Any

from .auth import ACCESS_COOKIE, REFRESH_COOKIE

BEARER, COOKIE, REFRESH, CRON = "bearerAuth", "authCookie", "refreshCookie", "cronSecret"
SECURITY_SCHEMES: dict[str, dict] = {
    BEARER: {"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
             "description": "The access token (HS256, 15 minutes) answered by POST /api/auth/login."},
    COOKIE: {"type": "apiKey", "in": "cookie", "name": ACCESS_COOKIE,
             "description": "The same access token in the HttpOnly cookie set at login; unsafe methods also "
                            "need the X-CSRF-Token header matching the csrf-token cookie."},
    REFRESH: {"type": "apiKey", "in": "cookie", "name": REFRESH_COOKIE,
              "description": "The rotating refresh token cookie set at login (Path=/api/auth)."},
    CRON: {"type": "http", "scheme": "bearer",
           "description": "The cron secret (`internships.cron_secret` in .local/dev.json)."},
}


def security(route_key: str, route: Any) -> list[dict]:
    from . import auth
    from .cron import handler as cron

    guards = (auth._RequireUserReading, auth._RequireRoles, auth._RequirePermission)
    if any(m is auth.require_user or isinstance(m, guards) for m in route.middlewares):
        return [{BEARER: []}, {COOKIE: []}]
    if route.middlewares:
        raise ValueError(f"{route_key}: a middleware this document does not know; say what it requires here")
    code = getattr(route.func, "__code__", None)
    if code is cron._route("probe").__code__ or code is cron.cron_task.__code__:
        return [{CRON: []}]
    if code is not None and "REFRESH_COOKIE" in code.co_names:  # POST /api/auth/refresh
        return [{REFRESH: []}]
    return []
