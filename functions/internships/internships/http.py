"""The internship service's HTTP conventions.

Success bodies are plain JSON objects as the spec lists them (most carry
``success: true``). Errors are ``{error: "description"}`` with the status;
validation failures are 400.
"""
from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import ApiError, ValidationFailed
from lambdakit.http import json_response, make_resolver
from lambdakit.observability import get_logger, http_handler
from lambdakit.responses import through_model
from lambdakit.settings import require_stage

from .settings import InternshipsSettings

logger = get_logger("internships")
# issue 17: a missing or unknown INTERNSHIPS_STAGE stops every function of the service at init
require_stage(InternshipsSettings)


def render_error(err: ApiError) -> dict:
    if isinstance(err, ValidationFailed) and err.fields:
        field, msg = next(iter(err.fields.items()))
        message = err.message if err.message != "Request validation failed" else f"{field}: {msg}"
        return {"error": message}
    return {"error": err.message}


#: The keys a list route's body holds beside its list (``list_key``): documented by ``openapi_wrap``.
LIST_SIBLINGS = ("success", "total", "page", "limit", "pages")


def ok(body: Any, status: int = 200, headers: dict[str, str] | None = None, cookies: list | None = None) -> Response:
    body = through_model(body, status, siblings=LIST_SIBLINGS)
    return json_response(status, body, headers=headers, cookies=cookies)


def _route_not_found(method: str, path: str) -> ApiError:
    return ApiError("Not found", code="NOT_FOUND", status=404)


def cursor_owner(app: Any) -> str:
    """Whom a pagination cursor is bound to: the signed-in user (``lambdakit.cursors``)."""
    p = app.context.get("principal")
    return f"user:{getattr(p, 'user_id', '')}"


def build_app(*routers: APIGatewayHttpRouter) -> APIGatewayHttpResolver:
    from .settings import settings

    app = make_resolver(render_error, validation_status=400, not_found=_route_not_found,
                        cursor_owner=cursor_owner, settings=settings)
    for r in routers:
        app.include_router(r)
    return app


def lambda_entry(app: APIGatewayHttpResolver):
    return http_handler(app, logger)


# ---------------------------------------------------------------- OpenAPI conventions
VALIDATION_STATUS = 400
OPENAPI_ERROR_SCHEMA: dict = {"type": "object", "required": ["error"],
                              "properties": {"error": {"type": "string", "description": "What went wrong"}}}


def openapi_wrap(schema: dict, info: dict) -> dict:
    """Bodies are plain objects as the spec lists them; a list route puts the array under
    ``list_key`` beside ``success`` and ``total`` (with ``page``/``limit``/``pages`` when paginated)."""
    if info.get("list_key"):
        props: dict = {"success": {"type": "boolean"}, info["list_key"]: schema, "total": {"type": "integer"}}
        if info.get("paginated"):
            props.update({"page": {"type": "integer"}, "limit": {"type": "integer"}, "pages": {"type": "integer"}})
        return {"type": "object", "required": [info["list_key"]], "properties": props}
    return schema

