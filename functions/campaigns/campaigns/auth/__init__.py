"""API-key authentication and authorisation for every protected campaign route, and the
``/api-keys`` management routes (``handler``); the keys themselves (records, scopes and roles,
bounds, authentication of a bearer key) are ``campaigns.apikeys``.

Usage in a handler module::

    from campaigns.auth import require, principal

    @router.get("/contacts", middlewares=[require("contacts:read")])
    def list_contacts():
        p = principal(router)      # Principal(account_id, key_id, ...)

``require(scope)`` authenticates ``Authorization: Bearer <key>``, enforces the key's
restrictions (expiry, IP allow-list), its rate limits (per-key ``rate_limit`` and the
plan limit, atomic DynamoDB counters) and the scope, then adds ``X-RateLimit-*``
headers to the response (errors included). ``<resource>:delete`` may be passed for
DELETE routes (see ``campaigns.apikeys.scopes``).
"""
from __future__ import annotations

from typing import Any, Callable

from lambdakit.errors import ApiError
from lambdakit.http import client_ip, header

from ..apikeys.principal import Principal
from ..apikeys.scopes import ALL_SCOPES, RESOURCES, ROLES, SEND_SCOPE, allows, role_scopes

__all__ = ["Principal", "require", "principal", "create_key", "ALL_SCOPES", "RESOURCES", "ROLES", "SEND_SCOPE",
           "allows", "role_scopes"]


def require(scope: str) -> Callable[[Any, Any], Any]:
    """A Powertools route middleware demanding a valid key with ``scope``."""
    resource, _, action = scope.partition(":")
    if not ((f"{resource}:read" in ALL_SCOPES and action in ("read", "write", "delete")) or scope == SEND_SCOPE
            or scope == "*"):
        raise ValueError(f"unknown scope {scope!r}")

    def mw(app, next_middleware):
        # The key store (and its models) loads on the first request, not with every handler module:
        # cold start. auth sits above apikeys, so this import runs the allowed way (tools/importlinter).
        from ..apikeys.service import authenticate

        p, rate_headers = authenticate(header(app, "authorization"), client_ip(app), scope)
        app.append_context(principal=p)
        try:
            response = next_middleware(app)
        except ApiError as err:
            err.headers = {**rate_headers, **(err.headers or {})}
            raise
        response.headers.update(rate_headers)
        return response

    return mw


def principal(app) -> Principal:
    """The authenticated caller of the current request (set by ``require``)."""
    p = app.context.get("principal")
    if p is None:
        raise ApiError("Authentication required", code="AUTH_REQUIRED", status=401)
    return p


def create_key(account_id: str, name: str, *, role: str | None = None, scopes=None, plan: str = "pro",
               restrictions: dict | None = None) -> tuple[str, dict]:
    """Create a key record for ``account_id``; returns ``(secret, record)``. See apikeys.service."""
    from ..apikeys.service import create_key as _create

    return _create(account_id, name, role=role, scopes=scopes, plan=plan, restrictions=restrictions)
