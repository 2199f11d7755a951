"""The exams OpenAPI document's security (imported by ``make openapi`` and the local front's
``/openapi.json``, never by a Lambda function).

Read off each route's own guard, so the document cannot drift from the code:

* ``exams.http.PUBLIC_ROUTES`` (health): public, ``security: []``;
* a ``require(...)`` middleware (every closure it returns shares one code object): the bearer ID token;
* ``optional_auth``: the guest column of ``exams.identity.policy``: ``token`` routes (and those the
  table does not list, whose domain code checks the guest) take the bearer token or the guest's
  attempt token (header ``x-attempt-token`` or query ``attempt_token``);
  ``share``/``public`` ones also answer without credentials (``{}``), and so does a ``token`` route
  whose body carries a ``share_code`` (a guest starting an attempt: the code is its credential).
"""
from __future__ import annotations

import importlib
from typing import Any

BEARER, HEADER, QUERY = "bearerAuth", "attemptTokenHeader", "attemptTokenQuery"
SECURITY_SCHEMES: dict[str, dict] = {
    BEARER: {"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
             "description": "An ID token (RS256) of the configured identity provider; locally, sign in with "
                            "InitiateAuth (USER_PASSWORD_AUTH) against `exams.identity` in .local/dev.json."},
    HEADER: {"type": "apiKey", "in": "header", "name": "x-attempt-token",
             "description": "A guest's attempt token (answered by POST /api/attempts with a share code)."},
    QUERY: {"type": "apiKey", "in": "query", "name": "attempt_token",
            "description": "The guest's attempt token as a query parameter (same token as the header)."},
}


def _body_has(route: Any, field: str) -> bool:
    ref = ((route.openapi_extensions or {}).get("x-lambdakit") or {}).get("body")
    if not ref:
        return False
    module, _, name = ref.partition(":")
    return field in getattr(importlib.import_module(module), name).model_fields


def security(route_key: str, route: Any) -> list[dict]:
    from .http import PUBLIC_ROUTES
    from .identity import STUDENT, optional_auth, require
    from .identity.policy import NO, TOKEN, cell

    if route_key in PUBLIC_ROUTES:
        return []
    probe = require(STUDENT).__code__
    if any(getattr(m, "__code__", None) is probe for m in route.middlewares):
        return [{BEARER: []}]
    if optional_auth in route.middlewares:
        c = cell(route_key)
        # unlisted guest-capable routes leave the guest check to the domain: the attempt token
        guest = c.guest if c is not None else TOKEN
        if guest == NO:
            return [{BEARER: []}]
        if guest == TOKEN and not _body_has(route, "share_code"):
            return [{BEARER: []}, {HEADER: []}, {QUERY: []}]
        return [{BEARER: []}, {}]
    if route.middlewares:
        raise ValueError(f"{route_key}: a middleware this document does not know; say what it requires here")
    return []
