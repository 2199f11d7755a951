"""The examination service's HTTP conventions.

Success: ``{data, message}``; lists ``{data: [...], pagination: {page, limit, total, pages}}``.
Error (shape A, everywhere): ``{error: CODE, message, status, details?}``; validation
details are an array of ``{field, message}`` and ``VALIDATION_ERROR`` is 400.

``build_app`` installs one service-wide middleware that runs before every route:
X-Request-Id → token verification → rate limits (global; strict on the spec's five
routes) → authentication audit → maintenance mode → the policy table's role check.
Every response, errors included, carries X-Request-Id, X-RateLimit-Limit,
X-RateLimit-Remaining and X-RateLimit-Reset (429s add Retry-After).
"""
from __future__ import annotations

import re
import uuid
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import ApiError, ValidationFailed
from lambdakit.http import client_ip, header, json_response, make_resolver
from lambdakit.observability import get_logger, http_handler
from lambdakit.responses import through_model
from lambdakit.settings import require_stage

from .settings import ExamsSettings

logger = get_logger("exams")
# issue 17: a missing or unknown EXAMS_STAGE stops every function of the service at init
require_stage(ExamsSettings)

PUBLIC_ROUTES = frozenset({"GET /health", "GET /"})
STRICT_PREFIXES = ("/api/create-user", "/api/attempts", "/api/attempt-answers", "/api/proctoring/events",
                   "/api/rpc/submit-attempt")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{8,128}$")


def render_error(err: ApiError) -> dict:
    body: dict[str, Any] = {"error": err.code, "message": err.message, "status": err.status}
    if isinstance(err, ValidationFailed):
        fields = [{"field": k, "message": v} for k, v in err.fields.items()]
        body["details"] = fields if err.details is None else err.details
    elif err.details is not None:
        body["details"] = err.details
    return body


def ok(data: Any = None, message: str = "OK", status: int = 200, headers: dict[str, str] | None = None,
       cookies: list | None = None) -> Response:
    return json_response(status, {"data": through_model(data, status), "message": message}, headers=headers,
                         cookies=cookies)


def ok_flat(data: dict, message: str = "OK", status: int = 200) -> Response:
    """``{data, message}`` plus the payload's own fields at the top level, for the routes whose spec
    body is flat (``GET /health`` ``{status}``, ``GET /`` ``{name, version, status}``): a client of
    either form reads them."""
    data = through_model(data, status)
    return json_response(status, {**data, "data": data, "message": message})


def paginated(items: list, pagination: dict, headers: dict[str, str] | None = None, *, also_as: str | None = None,
              **extra: Any) -> Response:
    """``{data: [...], pagination, **extra}``; ``also_as``: the same shaped list under that key too
    (``GET /api/clients``: the spec's ``clients``). ``extra``: the envelope's own scalars (``next_cursor``)."""
    shaped = through_model(items)
    body = {"data": shaped, "pagination": pagination, **extra}
    if also_as:
        body[also_as] = shaped
    return json_response(200, body, headers=headers)


def _route_not_found(method: str, path: str) -> ApiError:
    return ApiError(f"Route {method} {path} not found", code="NOT_FOUND", status=404)


def error_response(err: ApiError) -> Response:
    if isinstance(err, ValidationFailed) and err.status == 422:
        err.status = 400
    return json_response(err.status, render_error(err), headers=dict(err.headers))


def is_strict(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in STRICT_PREFIXES)


def _rate_limit(subject: str, route_path: str, headers: dict[str, str]) -> None:
    from lambdakit.ratelimit import can_pair, parse_rate

    from .controls import repository as controls
    from .settings import settings

    s = settings()
    checks = [("global", *parse_rate(s.global_rate_limit))]
    if is_strict(route_path):
        checks.append(("strict", *parse_rate(s.strict_rate_limit)))
    shown = None
    if len(checks) == 2 and can_pair(checks[0][1:], checks[1][1:]):
        # both counters on the global window's item: one UpdateItem, the same decisions
        decisions = [d for d in controls.hit_pair(checks[0], checks[1], subject) if d]
    else:
        decisions = []
        for name, limit, window in checks:
            decisions.append(controls.hit(f"{name}:{subject}", limit, window))
            if not decisions[-1].allowed:
                break
    for d in decisions:
        if shown is None or d.remaining < shown.remaining or not d.allowed:
            shown = d
    assert shown is not None
    headers.update(shown.headers())
    if not shown.allowed:
        raise ApiError("Too many requests; slow down", code="RATE_LIMITED", status=429,
                       details={"retry_after": shown.retry_after, "limit": shown.limit, "window": shown.window},
                       headers={"Retry-After": str(shown.retry_after)})


def _maintenance(principal, read: dict[tuple[str, str], dict] | None) -> None:
    """503 in maintenance mode (super admins pass). ``read``: the items the authentication read
    already (the settings item read with the profile; absent from it: not stored), ``None``: read now."""
    from .controls import platform
    from .controls.repository import SETTINGS_KEY

    if principal is not None and principal.is_super_admin:
        return
    cfg = platform.current() if read is None else platform.from_item(read.get(SETTINGS_KEY))
    if cfg.get("maintenance_mode"):
        msg = cfg.get("announcement_banner") or "The service is undergoing maintenance. Please try again later."
        raise ApiError("Service temporarily unavailable", code="SERVICE_UNAVAILABLE", status=503,
                       details={"reason": "maintenance_mode", "message": msg})


def _route_keys(decl, ev):
    """``decl``'s keys by user id, built once per user id for this request (the same keys for the
    read with the key set, the profile read and the hand-over)."""
    from .identity import reads as route_reads

    built: dict[str, tuple] = {}

    def keys(user_id: str) -> tuple:
        if user_id not in built:
            built[user_id] = route_reads.keys_for(decl, ev.path_parameters, ev.query_string_parameters, user_id)
        return built[user_id]

    return keys


def service_middleware(app: APIGatewayHttpResolver, next_middleware) -> Response:
    from .audit import context as audit_ctx
    from .controls.repository import SETTINGS_KEY
    from .identity import CONTEXT_KEY, policy
    from .identity import reads as route_reads
    from .identity.authn import AuthState, principal_for, reject, verify_token
    from .identity.tokens import bearer_token

    incoming = header(app, "x-request-id")
    ev = app.current_event
    # The API Gateway request id (every log line's correlation_id) is the response's X-Request-Id
    # (issue 18 item 3). A valid id the client sent is logged beside it, never echoed instead.
    rid = ev.request_context.request_id or str(uuid.uuid4())
    if incoming and _REQUEST_ID.match(incoming):
        logger.append_keys(client_request_id=incoming)
    headers: dict[str, str] = {"X-Request-Id": rid}
    route_key = ev.request_context.route_key or f"{ev.request_context.http.method} {ev.path}"
    route_path = route_key.partition(" ")[2]
    ip = client_ip(app)
    audit_ctx.set_ip(ip)
    try:
        public = route_key in PUBLIC_ROUTES
        token = None if public else bearer_token(header(app, "authorization"))
        # the platform settings item (maintenance mode) is read with the profile: one call (in a
        # process without a key set, the same call also reads the stored key set, before verifying)
        also = (SETTINGS_KEY,)
        # the items the route declared it reads first (identity.reads): in the same call
        decl = None if public or not token else route_reads.for_route(route_key)
        route, consistent = None, False
        if decl is not None:
            route, consistent = _route_keys(decl, ev), decl.consistent
        ident, rejected, prefetched = verify_token(token, also=also, route=route, consistent=consistent)
        subject = f"user:{ident.user_id}" if ident else f"ip:{ip}"
        _rate_limit(subject, route_path, headers)
        if rejected is not None:
            raise reject(rejected, ip)
        principal, read = None, None
        if ident:
            principal, read = principal_for(ident, ip, also=also, route=route, consistent=consistent,
                                            prefetched=prefetched)
            if principal is not None:
                route_reads.remember_role(principal.user_id, principal.role)
        app.append_context(**{CONTEXT_KEY: AuthState(token_present=token is not None, identity=ident,
                                                      principal=principal)})
        if not public:
            _maintenance(principal, read)
        policy.check(route_key, principal, has_identity=ident is not None)
        if route is not None and principal is not None and read is not None:
            # authenticated, a profile, not in maintenance, the role allowed: the route's items are
            # handed on (its own middleware and its domain checks still run before it uses them)
            wanted = route(principal.user_id)
            app.append_context(**{route_reads.CONTEXT_KEY: {k: read.get(k) for k in wanted}})
        resp = next_middleware(app)
    except ApiError as err:
        resp = error_response(err)
    except Exception as exc:  # noqa: BLE001 - never leak internals
        from pydantic import ValidationError

        from lambdakit.http import pydantic_fields

        if isinstance(exc, ValidationError):
            resp = error_response(ValidationFailed("Request validation failed", fields=pydantic_fields(exc)))
        else:
            logger.exception("unhandled error")
            resp = error_response(ApiError("Internal server error", code="SERVER_ERROR", status=500))
    for k, v in headers.items():
        resp.headers.setdefault(k, v)
    return resp


def cursor_owner(app: Any) -> str:
    """Whom a pagination cursor is bound to: the caller's tenant and user (``lambdakit.cursors``)."""
    state = app.context.get("exams.auth")
    p = getattr(state, "principal", None)
    if p is not None:
        return f"tenant:{p.client_id or '*'}:user:{p.user_id}"
    ident = getattr(state, "identity", None)
    return f"identity:{ident.user_id}" if ident is not None else ""


def build_app(*routers: APIGatewayHttpRouter) -> APIGatewayHttpResolver:
    from .settings import settings

    app = make_resolver(render_error, validation_status=400, not_found=_route_not_found,
                        cursor_owner=cursor_owner, settings=settings)
    app.use(middlewares=[service_middleware])
    for r in routers:
        app.include_router(r)
    return app


def lambda_entry(app: APIGatewayHttpResolver):
    return http_handler(app, logger)


# ---------------------------------------------------------------- OpenAPI conventions
VALIDATION_STATUS = 400
OPENAPI_ERROR_SCHEMA: dict = {
    "type": "object", "required": ["error", "message", "status"],
    "properties": {
        "error": {"type": "string", "description": "Machine code, e.g. VALIDATION_ERROR"},
        "message": {"type": "string"}, "status": {"type": "integer"},
        "details": {"description": "Validation: [{field, message}]; otherwise code-specific"}},
}
PAGINATION_SCHEMA: dict = {"type": "object", "required": ["page", "limit", "total", "pages"], "properties": {
    "page": {"type": "integer"}, "limit": {"type": "integer"}, "total": {"type": ["integer", "null"]},
    "pages": {"type": ["integer", "null"]}}}


def openapi_wrap(schema: dict, info: dict) -> dict:
    """``{data, message}``; paginated lists ``{data: [...], pagination}``."""
    if info.get("paginated"):
        return {"type": "object", "required": ["data", "pagination"],
                "properties": {"data": schema, "pagination": PAGINATION_SCHEMA}}
    return {"type": "object", "required": ["data"], "properties": {"data": schema, "message": {"type": "string"}}}

