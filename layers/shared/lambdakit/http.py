"""HTTP mechanics shared by every service: resolver factory, error rendering hooks,
JSON responses and request helpers.

A service supplies ``render_error(err: ApiError) -> dict`` (its own error body),
the status its validation errors use, and gets back a Powertools
``APIGatewayHttpResolver`` whose exception handlers never leak a stack trace.
"""
from __future__ import annotations

import datetime as _dt
import json
import logging
import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Callable, Sequence, Union

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError

from .errors import ApiError, ValidationFailed

if TYPE_CHECKING:
    from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

#: What the request helpers accept: the resolver, or a router included in it (handlers pass
#: their module's router; both expose the current event).
HttpApp = Union[APIGatewayHttpResolver, "APIGatewayHttpRouter"]

logger = logging.getLogger("lambdakit.http")

JSON = "application/json"
MAX_JSON_DEPTH = 32


def _default(o: Any) -> Any:
    if isinstance(o, Decimal):
        return int(o) if o == o.to_integral_value() else float(o)
    if isinstance(o, (_dt.datetime, _dt.date)):
        return o.isoformat()
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    if hasattr(o, "model_dump"):
        return o.model_dump(mode="json")
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def dumps(body: Any) -> str:
    return json.dumps(body, default=_default, separators=(",", ":"), ensure_ascii=False)


def json_response(status: int, body: Any, headers: dict[str, str] | None = None, cookies: list | None = None) -> Response:
    return Response(status_code=status, content_type=JSON, body=dumps(body), headers=headers or {}, cookies=cookies or [])


def file_response(body: bytes | str, content_type: str, filename: str, *, inline: bool = False,
                  headers: dict[str, str] | None = None) -> Response:
    """A file answer of any service (a PDF, an XLSX report, an export, a raw message): named by
    ``Content-Disposition`` (``attachment``, or ``inline`` to be shown), never stored by a cache
    (they hold personal data) and never content-sniffed by a browser. ``headers``: the route's own
    additions (``X-Total-Count``...)."""
    disposition = "inline" if inline else "attachment"
    return Response(status_code=200, content_type=content_type, body=body, headers={
        "Content-Disposition": f'{disposition}; filename="{filename}"', "Cache-Control": "private, no-store",
        "X-Content-Type-Options": "nosniff", **(headers or {})})


#: DynamoDB's number type: at most 38 significant digits, magnitude 1E-130 .. 9.99..E+125.
DDB_MAX_DIGITS = 38
DDB_MAX = Decimal("9.9999999999999999999999999999999999999E+125")
DDB_MIN = Decimal("1E-130")
_MAX_NUMBER_TEXT = 200
_SURROGATE = re.compile("[\ud800-\udfff]")
#: Control characters no request string may hold (issue 32): C0 except tab, newline and carriage
#: return, DEL, C1. Single-line fields refuse tab and line breaks too (``lambdakit.model``).
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class _Refused(ValueError):
    def __init__(self, message: str, field: str, path: str = "") -> None:
        super().__init__(message)
        self.message, self.field, self.path = message, field, path


class _Bad:
    """A number the parser hooks refused; reported with its path by ``_check_tree``."""
    __slots__ = ("message", "field")

    def __init__(self, message: str, field: str) -> None:
        self.message, self.field = message, field


_NON_FINITE = ("non-finite number", "Numbers must be finite")
_UNSTORABLE = ("number DynamoDB cannot store (more than 38 significant digits or magnitude outside "
               "1E-130..9.99E+125)", "Number out of range")


def _refuse_constant(name: str) -> Any:
    return _Bad(f"{_NON_FINITE[0]} ({name})", _NON_FINITE[1])


def _storable(text: str) -> _Bad | None:
    """``None`` if ``text`` (a JSON number literal) is a number DynamoDB can store."""
    if len(text) > _MAX_NUMBER_TEXT:
        return _Bad(*_UNSTORABLE)
    try:
        d = Decimal(text)
    except (ArithmeticError, ValueError):
        return _Bad("invalid number", "Invalid number")
    if not d.is_finite():
        return _Bad(*_NON_FINITE)
    if d:
        digits = "".join(map(str, d.as_tuple().digits)).strip("0")
        if len(digits) > DDB_MAX_DIGITS or not DDB_MIN <= abs(d) <= DDB_MAX:
            return _Bad(*_UNSTORABLE)
    return None


def _parse_float(text: str) -> float | _Bad:
    return _storable(text) or float(text)


def _parse_int(text: str) -> int | _Bad:
    # an integer literal is stored as the integer it is: at most 38 digits (10**40 has one
    # significant digit, but as a Python int it cannot be written to DynamoDB: issue 32)
    if len(text.lstrip("-")) > DDB_MAX_DIGITS:
        return _Bad(*_UNSTORABLE)
    return _storable(text) or int(text)


def _check_tree(o: Any, limit: int) -> None:
    """A refused number, nesting deeper than ``limit`` or an unpaired UTF-16 surrogate in any
    key or string: ``_Refused`` naming the path. (A paired surrogate escape decodes to one code
    point; what remains in the decoded text is unpaired and cannot be encoded as UTF-8, stored
    or sent.)"""
    unicode = ("unpaired surrogate", "Strings must be valid Unicode")
    control = ("control character", "Control characters are not allowed")
    stack: list[tuple[Any, int, str]] = [(o, 1, "")]
    while stack:
        cur, d, path = stack.pop()
        if d > limit:
            raise _Refused("Request body is nested too deeply", "Nesting too deep")
        bad: tuple[str, str] | None = None
        if isinstance(cur, _Bad):
            bad = (cur.message, cur.field)
        elif isinstance(cur, str):
            if _SURROGATE.search(cur):
                bad = unicode
            elif _CONTROL.search(cur):
                bad = control
        elif isinstance(cur, dict):
            for k, v in cur.items():
                sub = f"{path}.{k}" if path else k
                if _SURROGATE.search(k):
                    raise _Refused(f"Request body holds an {unicode[0]} in a key", unicode[1], path or "body")
                if _CONTROL.search(k):
                    raise _Refused(f"Request body holds a {control[0]} in a key", control[1], path or "body")
                stack.append((v, d + 1, sub))
        elif isinstance(cur, list):
            stack.extend((v, d + 1, f"{path}[{i}]" if path else f"[{i}]") for i, v in enumerate(cur))
        if bad:
            article = "an" if bad[0][0] in "aeiou" else "a"
            at = f" at {path}" if path else ""
            raise _Refused(f"Request body holds {article} {bad[0]}{at}", bad[1], path)


def safe_json_loads(raw: str | bytes | None) -> Any:
    """Parse JSON from a request body; ``ValidationFailed`` (the service's validation status)
    for bad JSON, invalid UTF-8, nesting deeper than ``MAX_JSON_DEPTH``, ``NaN``/``Infinity``
    and numbers that overflow a float (``1e999``), numbers DynamoDB cannot store (more than 38
    significant digits, magnitude outside 1E-130..9.99E+125), unpaired surrogates
    (``"\\ud800"``) and control characters other than tab, newline and carriage return
    (``"\\u0000"``, issue 32) in keys or values. Every request body of the three services goes through
    it, so no handler ever sees such a value."""
    if raw is None or raw == "" or raw == b"":
        raise ValidationFailed("Request body is required", fields={"body": "Request body is required"})
    try:
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8")
        data = json.loads(raw, parse_float=_parse_float, parse_int=_parse_int, parse_constant=_refuse_constant)
        _check_tree(data, MAX_JSON_DEPTH)
    except _Refused as exc:
        raise ValidationFailed(exc.message, fields={exc.path or "body": exc.field}) from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ValidationFailed("Request body is not valid JSON", fields={"body": "Invalid JSON"}) from None
    return data


def json_object(app: HttpApp, *, required: bool = True) -> dict:
    """The request body as a JSON object (``ValidationFailed`` otherwise)."""
    ev = app.current_event
    raw: Any = ev.body
    if ev.is_base64_encoded and raw:
        import base64

        try:
            raw = base64.b64decode(raw)
        except Exception:  # noqa: BLE001
            raise ValidationFailed("Request body is not valid JSON", fields={"body": "Invalid JSON"}) from None
    if not raw and not required:
        return {}
    data = safe_json_loads(raw)
    if not isinstance(data, dict):
        raise ValidationFailed("Request body must be a JSON object", fields={"body": "Must be a JSON object"})
    return data


def parse_model(model: Any, data: Any) -> Any:
    """Validate ``data`` into a pydantic model; ``ValidationFailed`` keyed by field path."""
    from pydantic import ValidationError

    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ValidationFailed("Request validation failed", fields=pydantic_fields(exc)) from None


def pydantic_fields(exc: Any) -> dict[str, str]:
    fields: dict[str, str] = {}
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path", "header")]
        msg = err.get("msg", "Invalid value")
        cause: Any = (err.get("ctx") or {}).get("error")
        path, problem = getattr(cause, "path", None), getattr(cause, "problem", None)
        if path and problem:  # lambdakit.model.FieldProblem
            loc, msg = [*loc, str(path)], f"Value error, {problem}"
        key = ".".join(loc) or "body"
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        fields.setdefault(key, msg)
    return fields


def header(app: HttpApp, name: str) -> str | None:
    headers = app.current_event.headers or {}
    lname = name.lower()
    for k, v in headers.items():
        if k.lower() == lname:
            return v
    return None


def query(app: HttpApp, name: str, default: str | None = None) -> str | None:
    params = app.current_event.query_string_parameters or {}
    value = params.get(name)
    return default if value is None else value


def int_query(app: HttpApp, name: str, default: int, *, minimum: int = 1, maximum: int | None = None,
              clamp: bool = False) -> int:
    raw = query(app, name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValidationFailed(f"{name} must be an integer", fields={name: "Must be an integer"}) from None
    if clamp:
        value = max(minimum, value if maximum is None else min(value, maximum))
        return value
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
        raise ValidationFailed(f"{name} must be {bound}", fields={name: f"Must be {bound}"})
    return value


def client_ip(app: HttpApp) -> str:
    ctx = app.current_event.raw_event.get("requestContext", {})
    return (ctx.get("http") or {}).get("sourceIp") or "0.0.0.0"


def cookies(app: HttpApp) -> dict[str, str]:
    """Cookies of a payload-2.0 event (``cookies`` array, or a Cookie header)."""
    out: dict[str, str] = {}
    raw = list(app.current_event.raw_event.get("cookies") or [])
    hdr = header(app, "cookie")
    if hdr:
        raw.extend(hdr.split(";"))
    for c in raw:
        if "=" in c:
            k, v = c.strip().split("=", 1)
            out.setdefault(k.strip(), v.strip())
    return out


def raw_body(app: HttpApp) -> bytes:
    ev = app.current_event
    body = ev.body or ""
    if ev.is_base64_encoded:
        import base64

        return base64.b64decode(body)
    return body.encode("utf-8") if isinstance(body, str) else body


RenderError = Callable[[ApiError], dict]


def make_resolver(
    render_error: RenderError,
    *,
    validation_status: int = 422,
    not_found: Callable[[str, str], ApiError] | None = None,
    enable_validation: bool = False,
    server_error_code: str = "SERVER_ERROR",
    strip_prefixes: Sequence[str] = (),
    cursor_owner: Callable[[Any], str] | None = None,
    settings: Callable[[], Any] | None = None,
) -> APIGatewayHttpResolver:
    """A resolver wired with the service's error format.

    Every failure becomes an ``ApiError`` rendered by ``render_error``: domain
    errors as raised, request validation as ``ValidationFailed`` (status
    ``validation_status``), unknown routes as ``not_found``, anything else as a
    500 with code ``server_error_code`` and no internals.

    ``strip_prefixes`` (Powertools' own option): path prefixes the resolver removes before
    matching, so ``<prefix><route>`` is answered by ``<route>`` with the same path parameters
    (e.g. ``["/api/v1"]``: an alias of every route; API Gateway must route the prefixed paths
    to the function too). The not-found hook still gets the path as requested.

    ``cursor_owner(app)`` names the caller a pagination cursor is bound to (read after the route's
    authentication ran) and ``settings()`` gives the service settings holding the cursor key:
    ``lambdakit.cursors`` signs and checks every cursor of every route of this resolver with them.
    """
    prefixes: list[str | re.Pattern] = list(strip_prefixes)
    app = APIGatewayHttpResolver(enable_validation=enable_validation, serializer=dumps,
                                 strip_prefixes=prefixes or None)
    # for observability.http_handler's last-resort 500 (an exception escaping the resolver)
    app.lambdakit_render_error = render_error  # type: ignore[attr-defined]
    app.lambdakit_server_error_code = server_error_code  # type: ignore[attr-defined]
    from . import responses
    from .cursors import middleware as cursor_middleware

    app.use([cursor_middleware(cursor_owner, settings), responses.middleware])

    def respond(err: ApiError) -> Response:
        if isinstance(err, ValidationFailed) and err.status == 422 and validation_status != 422:
            err.status = validation_status
        return json_response(err.status, render_error(err), headers=err.headers)

    @app.exception_handler(ApiError)
    def _api_error(exc: ApiError) -> Response:
        return respond(exc)

    @app.not_found
    def _not_found(exc: NotFoundError) -> Response:
        ev = app.current_event
        err = not_found(ev.request_context.http.method, ev.path) if not_found else ApiError(
            "Route not found", code="NOT_FOUND", status=404)
        return respond(err)

    if enable_validation:
        from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

        @app.exception_handler(RequestValidationError)
        def _request_validation(exc: RequestValidationError) -> Response:
            fields: dict[str, str] = {}
            for e in exc.errors():
                loc = [str(p) for p in e.get("loc", ()) if p not in ("body", "query", "path", "header")]
                fields.setdefault(".".join(loc) or "body", e.get("msg", "Invalid value"))
            return respond(ValidationFailed("Request validation failed", fields=fields))

    @app.exception_handler(Exception)
    def _unexpected(exc: Exception) -> Response:
        from pydantic import ValidationError

        if isinstance(exc, ValidationError):
            return respond(ValidationFailed("Request validation failed", fields=pydantic_fields(exc)))
        logger.exception("unhandled error")
        return respond(ApiError("Internal server error", code=server_error_code, status=500))

    return app
