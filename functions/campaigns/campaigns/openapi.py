"""The campaigns OpenAPI document's security (imported by ``make openapi`` and the local front's
``/openapi.json``, never by a Lambda function).

A route takes the API key exactly when one of its middlewares is ``campaigns.auth.require``
(every closure ``require`` returns shares its code object), so the document cannot drift from
the code: the health route and the signed-token tracking and unsubscribe routes have no such
middleware and are public (``security: []``).
"""
from __future__ import annotations

from typing import Any

API_KEY = "apiKey"
SECURITY_SCHEMES: dict[str, dict] = {
    API_KEY: {"type": "http", "scheme": "bearer", "bearerFormat": "API key (ck_…)",
              "description": "`Authorization: Bearer <API key>`; the dev key is `campaigns.api_key` in "
                             ".local/dev.json. Its scopes or role decide which routes it may call (403 otherwise)."},
}


def security(route_key: str, route: Any) -> list[dict]:
    from .auth import require

    probe = require("*").__code__
    if any(getattr(m, "__code__", None) is probe for m in route.middlewares):
        return [{API_KEY: []}]
    if route.middlewares:
        raise ValueError(f"{route_key}: a middleware this document does not know; say what it requires here")
    return []
