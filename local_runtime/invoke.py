"""In-process invocation of the real function handlers.

``build_http_event`` makes an API Gateway HTTP API payload-2.0 event exactly as
the deployed API would for a matched route; ``invoke`` imports the function's
handler (from its ``CodeUri`` and the shared layer) and calls it with a Lambda
context.
"""
from __future__ import annotations

import base64
import importlib
import json
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote

from . import costlog
from .stack import ACCOUNT, REGION, ROOT, Function, Route

LAYER_DIR = ROOT / "layers" / "shared"
costlog.from_env()  # with LOCAL_COST_LOG set: the botocore hook goes in before any client exists
TEXT_TYPES = ("application/json", "text/", "application/x-www-form-urlencoded", "application/xml",
              "application/javascript")


@dataclass
class LambdaContext:
    function_name: str
    memory_limit_in_mb: int
    timeout_s: int
    aws_request_id: str = ""
    function_version: str = "$LATEST"
    log_group_name: str = ""
    log_stream_name: str = "local"

    def __post_init__(self) -> None:
        self.aws_request_id = self.aws_request_id or str(uuid.uuid4())
        self.invoked_function_arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{self.function_name}"
        self.log_group_name = f"/aws/lambda/{self.function_name}"
        self._deadline = time.monotonic() + self.timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def ensure_paths(fn: Function | None = None, code_dirs: list[Path] | None = None) -> None:
    for p in [LAYER_DIR, *(code_dirs or []), *([fn.code_dir] if fn else [])]:
        s = str(p)
        if s not in sys.path:
            sys.path.insert(0, s)


def load_handler(fn: Function):
    ensure_paths(fn)
    module_name, _, attr = fn.handler.rpartition(".")
    return getattr(importlib.import_module(module_name), attr)


def context_for(fn: Function) -> LambdaContext:
    return LambdaContext(function_name=f"{fn.service}-{fn.logical_id}", memory_limit_in_mb=fn.memory,
                         timeout_s=fn.timeout)


def invoke(fn: Function, event: dict) -> Any:
    cost = costlog.from_env()
    if cost is None:
        return load_handler(fn)(event, context_for(fn))
    with cost.record(costlog.invocation_kind(event), fn.service, fn.logical_id) as entry:
        try:
            result = load_handler(fn)(event, context_for(fn))
        except BaseException:
            entry["status"] = "error"
            raise
        entry["status"] = "ok"
        return result


def is_text(content_type: str | None) -> bool:
    ct = (content_type or "").lower()
    return any(ct.startswith(t) for t in TEXT_TYPES) or ct.endswith("+json")


def build_http_event(route: Route, path_params: dict[str, str], method: str, raw_path: str, raw_query: str,
                     headers: dict[str, str], body: bytes | None, *, source_ip: str = "127.0.0.1",
                     stage: str = "$default", api_id: str = "local") -> dict:
    lower: dict[str, str] = {}
    cookies: list[str] = []
    for k, v in headers.items():
        lk = k.lower()
        if lk == "cookie":
            cookies.extend(c.strip() for c in v.split(";") if c.strip())
            continue
        lower[lk] = f"{lower[lk]},{v}" if lk in lower else v
    qs: dict[str, str] = {}
    for k, v in parse_qsl(raw_query, keep_blank_values=True):
        qs[k] = f"{qs[k]},{v}" if k in qs else v
    now = time.time()
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route.route_key,
        "rawPath": raw_path,
        "rawQueryString": raw_query,
        "headers": lower,
        "requestContext": {
            "accountId": ACCOUNT, "apiId": api_id, "domainName": lower.get("host", "127.0.0.1"),
            "domainPrefix": "local",
            "http": {"method": method, "path": raw_path, "protocol": "HTTP/1.1", "sourceIp": source_ip,
                     "userAgent": lower.get("user-agent", "")},
            "requestId": str(uuid.uuid4()), "routeKey": route.route_key, "stage": stage,
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)), "timeEpoch": int(now * 1000),
        },
        "isBase64Encoded": False,
    }
    if cookies:
        event["cookies"] = cookies
    if qs:
        event["queryStringParameters"] = qs
    if path_params:
        event["pathParameters"] = path_params
    if body:
        if is_text(lower.get("content-type")):
            try:
                event["body"] = body.decode("utf-8")
            except UnicodeDecodeError:
                event["body"] = base64.b64encode(body).decode()
                event["isBase64Encoded"] = True
        else:
            event["body"] = base64.b64encode(body).decode()
            event["isBase64Encoded"] = True
    return event


@dataclass
class HttpResult:
    status: int
    headers: dict[str, str]
    cookies: list[str]
    body: bytes

    def json(self) -> Any:
        import json

        return json.loads(self.body or b"null")

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


def to_http_result(resp: Any) -> HttpResult:
    """Payload-2.0 response → status, headers, cookies, body bytes (as API Gateway does)."""
    if not isinstance(resp, dict) or "statusCode" not in resp:
        import json

        return HttpResult(200, {"content-type": "application/json"}, [], json.dumps(resp).encode())
    headers = {k.lower(): str(v) for k, v in (resp.get("headers") or {}).items()}
    for k, vs in (resp.get("multiValueHeaders") or {}).items():
        headers[k.lower()] = ",".join(map(str, vs))
    body = resp.get("body") or ""
    data = base64.b64decode(body) if resp.get("isBase64Encoded") else body.encode("utf-8")
    return HttpResult(int(resp["statusCode"]), headers, list(resp.get("cookies") or []), data)


def not_found_result(service: str, method: str, path: str) -> HttpResult:
    """What an unmatched route answers: 404 in the service's own error format.

    Uses the service's ``<svc>.http`` hooks (``_route_not_found``/``render_error``);
    falls back to API Gateway's own body if the service has none.
    """
    import json

    try:
        http = importlib.import_module(f"{service}.http")
        make = getattr(http, "_route_not_found", None)
        from lambdakit.errors import ApiError

        err = make(method, path) if make else ApiError(f"Route {method} {path} not found", code="NOT_FOUND",
                                                        status=404)
        body = http.render_error(err)
    except (ImportError, AttributeError):
        body = {"message": "Not Found"}
    return HttpResult(404, {"content-type": "application/json"}, [], json.dumps(body).encode())


def dispatch(svc: Any, method: str, path: str, raw_query: str, headers: dict[str, str], body: bytes | None, *,
             source_ip: str = "127.0.0.1", invoker: Any = None) -> HttpResult:
    """Route a request exactly as the template's HttpApi events do and invoke the function.

    With ``LOCAL_COST_LOG`` set, the request's AWS calls are logged under its route key."""
    cost = costlog.from_env()
    if cost is None:
        return _dispatch(svc, method, path, raw_query, headers, body, source_ip=source_ip, invoker=invoker)
    match = svc.match(method, path)
    # an alias twin (/api/v1/...) is logged under its authoritative route, so the two forms do not split
    with cost.record("http", svc.name, match[0].canonical_key if match else "<unmatched>") as entry:
        try:
            result = _dispatch(svc, method, path, raw_query, headers, body, source_ip=source_ip, invoker=invoker,
                               match=match)
        except BaseException:
            entry["status"] = 500  # what the front answers when the function raises
            raise
        entry["status"] = result.status
        return result


_NO_MATCH: Any = object()
#: Lambda's limit for a synchronous invocation's payload (6 MB).
LAMBDA_SYNC_PAYLOAD = 6_291_456


def _dispatch(svc: Any, method: str, path: str, raw_query: str, headers: dict[str, str], body: bytes | None, *,
              source_ip: str, invoker: Any, match: Any = _NO_MATCH) -> HttpResult:
    # HTTP APIs match the percent-encoded path, then hand the function decoded values
    # (rawPath and pathParameters), as observed on API Gateway.
    if match is _NO_MATCH:
        match = svc.match(method, path)
    decoded = unquote(path)
    if match is None:
        ensure_paths(code_dirs=[svc.dir])
        return not_found_result(svc.name, method, decoded)
    route, params = match
    params = {k: unquote(v) for k, v in params.items()}
    event = build_http_event(route, params, method, decoded, raw_query, headers, body, source_ip=source_ip)
    if body and len(body) > 4_000_000 and len(json.dumps(event)) > LAMBDA_SYNC_PAYLOAD:
        # Lambda refuses a synchronous invocation over 6 MB (the event as JSON, a binary body
        # base64-encoded): the function never runs and API Gateway answers 413.
        return HttpResult(413, {"content-type": "application/json"}, [], b'{"message":"Request Entity Too Large"}')
    return to_http_result((invoker or invoke)(svc.functions[route.function], event))
