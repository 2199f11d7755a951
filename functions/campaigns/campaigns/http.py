"""The campaign service's HTTP conventions.

Success: ``{success: true, data, message, timestamp}``.
Error:   ``{success: false, error: {code, message, details}, timestamp}``; ``details`` is always an
object (``{}`` when there is nothing to add); validation details are keyed by field name;
``VALIDATION_ERROR`` is 422.

Paths: the unprefixed paths are authoritative; every route also answers, identically, under
``API_ALIAS_PREFIX`` (``/api/v1``): Powertools strips the prefix before matching (``strip_prefixes``)
and the template declares an ``/api/v1`` twin of every HttpApi route (docs/campaigns-architecture.md).
"""
from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit import clock
from lambdakit.errors import ApiError, ValidationFailed
from lambdakit.http import json_response, make_resolver
from lambdakit.observability import get_logger, http_handler
from lambdakit.responses import through_model
from lambdakit.settings import require_stage

from .settings import CampaignsSettings

logger = get_logger("campaigns")
# issue 17: a missing or unknown CAMPAIGNS_STAGE stops every function of the service at init
require_stage(CampaignsSettings)


def render_error(err: ApiError) -> dict:
    details: Any = err.details
    if isinstance(err, ValidationFailed):
        details = {**(details or {}), **err.fields} if isinstance(details, dict) or details is None else details
    # The spec's error shape has ``error.details`` (an object) on every error: ``{}`` when there is none.
    body: dict[str, Any] = {"code": err.code, "message": err.message, "details": {} if details is None else details}
    return {"success": False, "error": body, "timestamp": clock.now_iso()}


def ok(data: Any = None, message: str = "OK", status: int = 200, headers: dict[str, str] | None = None) -> Response:
    data = through_model(data if data is not None else {}, status, siblings=("pagination",))
    return json_response(status, {"success": True, "data": data, "message": message,
                                  "timestamp": clock.now_iso()}, headers=headers)


def _route_not_found(method: str, path: str) -> ApiError:
    return ApiError(f"Route {method} {path} not found", code="NOT_FOUND", status=404)


#: Every route is also served under this prefix (same function, auth, scopes, limits and answers);
#: the template's ``Metadata.RouteAliasPrefixes`` names the same prefix for API Gateway's twins.
API_ALIAS_PREFIX = "/api/v1"


def cursor_owner(app: Any) -> str:
    """Whom a pagination cursor is bound to: the caller's account (``lambdakit.cursors``)."""
    p = app.context.get("principal")
    return f"acct:{getattr(p, 'account_id', '')}"


def build_app(*routers: APIGatewayHttpRouter) -> APIGatewayHttpResolver:
    from .settings import settings

    app = make_resolver(render_error, validation_status=422, not_found=_route_not_found,
                        strip_prefixes=[API_ALIAS_PREFIX], cursor_owner=cursor_owner, settings=settings)
    for r in routers:
        app.include_router(r)
    return app


def lambda_entry(app: APIGatewayHttpResolver):
    return http_handler(app, logger)


# ---------------------------------------------------------------- OpenAPI conventions
VALIDATION_STATUS = 422
#: The document lists each path once (unprefixed, authoritative) and states the alias here.
OPENAPI_SERVERS: list[dict] = [
    {"url": "/", "description": "Authoritative paths (no version prefix)"},
    {"url": API_ALIAS_PREFIX, "description": f"Alias: every path of this document also answers at {API_ALIAS_PREFIX} "
                                             "+ the path, identically (not deprecated)"}]
OPENAPI_DESCRIPTION = (f"The paths below, without a version prefix, are authoritative. Every one of them is also served "
                       f"at {API_ALIAS_PREFIX} + the same path (e.g. GET {API_ALIAS_PREFIX}/health, DELETE "
                       f"{API_ALIAS_PREFIX}/contacts/{{id}}) with the same authentication, scopes, rate limits and "
                       f"answers; neither form is deprecated (docs/campaigns-architecture.md, \"Paths and the "
                       f"{API_ALIAS_PREFIX} alias\").")
OPENAPI_ERROR_SCHEMA: dict = {
    "type": "object", "required": ["success", "error", "timestamp"],
    "properties": {
        "success": {"type": "boolean", "const": False},
        "error": {"type": "object", "required": ["code", "message", "details"], "properties": {
            "code": {"type": "string"}, "message": {"type": "string"},
            "details": {"type": "object", "description": "Field name to message for validation errors; otherwise "
                                                          "code-specific; {} when there is nothing to add"}}},
        "timestamp": {"type": "string"}},
}
PAGINATION_SCHEMA: dict = {"type": "object", "required": ["page", "limit", "total", "pages"], "properties": {
    "page": {"type": "integer"}, "limit": {"type": "integer"}, "total": {"type": "integer"},
    "pages": {"type": "integer"}, "next_cursor": {"type": ["string", "null"]},
    "total_exact": {"type": "boolean", "description": "GET /contacts: false while total is an estimate "
                                                       "(docs/campaigns-audience.md)"}}}


def openapi_wrap(schema: dict, info: dict) -> dict:
    """``{success, data, message, timestamp}``; lists put the array under ``data.<list_key>``."""
    data = schema
    if info.get("list_key"):
        data = {"type": "object", "required": [info["list_key"]],
                "properties": {info["list_key"]: schema,
                               **({"pagination": PAGINATION_SCHEMA} if info.get("paginated") else {})}}
    return {"type": "object", "required": ["success", "data", "message", "timestamp"], "properties": {
        "success": {"type": "boolean", "const": True}, "data": data, "message": {"type": "string"},
        "timestamp": {"type": "string"}}}

