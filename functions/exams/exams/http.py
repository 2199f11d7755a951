"""The examination service's HTTP conventions.

Success: ``{data, message}``; lists ``{data: [...], pagination: {page, limit, total, pages}}``.
Error (shape A, everywhere): ``{error: CODE, message, status, details?}``; validation
details are an array of ``{field, message}`` and ``VALIDATION_ERROR`` is 400.
"""
from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import ApiError, ValidationFailed
from lambdakit.http import json_response, make_resolver
from lambdakit.observability import get_logger, http_handler

logger = get_logger("exams")


def render_error(err: ApiError) -> dict:
    body: dict[str, Any] = {"error": err.code, "message": err.message, "status": err.status}
    if isinstance(err, ValidationFailed):
        fields = [{"field": k, "message": v} for k, v in err.fields.items()]
        body["details"] = fields if err.details is None else err.details
    elif err.details is not None:
        body["details"] = err.details
    return body


def ok(data: Any = None, message: str = "OK", status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return json_response(status, {"data": data, "message": message}, headers=headers)


def paginated(items: list, pagination: dict, headers: dict[str, str] | None = None, **extra: Any) -> Response:
    return json_response(200, {"data": items, "pagination": pagination, **extra}, headers=headers)


def _route_not_found(method: str, path: str) -> ApiError:
    return ApiError(f"Route {method} {path} not found", code="NOT_FOUND", status=404)


def build_app(*routers: APIGatewayHttpRouter) -> APIGatewayHttpResolver:
    app = make_resolver(render_error, validation_status=400, not_found=_route_not_found)
    for r in routers:
        app.include_router(r)
    return app


def lambda_entry(app: APIGatewayHttpResolver):
    return http_handler(app, logger)
