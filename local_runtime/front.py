"""An HTTP front per service: what API Gateway (HTTP API, payload 2.0) does, in-process.

Each request becomes the payload-2.0 event of the template route it matches (with path
parameters, cookies, base64 bodies for binary/multipart content); the function's real
handler runs with a Lambda context; the response goes back with its status, headers,
cookies (one ``Set-Cookie`` each) and body. Unmatched routes answer 404 in the service's
error format. With the template's ``CorsConfiguration``, preflights are answered and CORS
headers set as the gateway does (``cors``). Local-only extras (not deployed): ``GET /openapi.json``
and Swagger UI at ``GET /docs`` with its assets served from the ``swagger-ui-py`` package, and
the ``pages`` a service's front serves (internships: the newcomer pages of ``pages``).
"""
from __future__ import annotations

import importlib.util
import json
import logging
import mimetypes
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

from . import invoke as inv
from .cors import CorsConfig
from .stack import Service

log = logging.getLogger("local_runtime.front")
MAX_BODY = 10 * 1024 * 1024  # API Gateway's payload limit

DOCS_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"><link rel="icon" href="/docs/favicon-32x32.png"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>
</body></html>
"""
DOCS_INIT = """window.onload = function () {
  window.ui = SwaggerUIBundle({url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true,
    validatorUrl: null, presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "StandaloneLayout"});
};
"""


def swagger_dir() -> Path | None:
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        return None
    d = Path(list(spec.submodule_search_locations)[0]) / "static"
    return d if d.is_dir() else None


class Front:
    def __init__(self, svc: Service, host: str, port: int, invoker: Callable[[Any, dict], Any],
                 openapi: Callable[[], dict], cors: CorsConfig | None = None,
                 pages: Callable[[str, str, str, dict[str, str]], inv.HttpResult | None] | None = None) -> None:
        self.svc = svc
        self.cors = cors
        self.pages = pages
        self.invoker = invoker
        self.openapi = openapi
        self._openapi_cache: bytes | None = None
        front = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            server_version = "local-apigw"

            def log_message(self, fmt: str, *args: Any) -> None:  # noqa: D102 - access log via logging
                log.debug("%s " + fmt, svc.name, *args)

            def _handle(self) -> None:
                front.handle(self)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _handle
            def __getattr__(self, name: str) -> Any:
                # API Gateway answers any method (TRACE, QUERY, PROPFIND...): no route matches,
                # so a 404 in the service's error format, never http.server's HTML 501.
                if name.startswith("do_"):
                    return self._handle
                raise AttributeError(name)

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, name=f"front-{svc.name}", daemon=True)

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- request handling -------------------------------------------------------------
    def _read_body(self, h: BaseHTTPRequestHandler) -> bytes | None:
        if (h.headers.get("Transfer-Encoding") or "").lower() == "chunked":
            chunks = []
            while True:
                size = int(h.rfile.readline().strip().split(b";")[0] or b"0", 16)
                if size == 0:
                    h.rfile.readline()
                    break
                chunks.append(h.rfile.read(size))
                h.rfile.readline()
            return b"".join(chunks)
        n = int(h.headers.get("Content-Length") or 0)
        return h.rfile.read(n) if n else None

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        started = time.monotonic()
        method = h.command
        path, _, raw_query = h.path.partition("?")
        try:
            body = self._read_body(h)
        except (ValueError, OSError):
            return self._send(h, inv.HttpResult(400, {"content-type": "application/json"}, [],
                                                b'{"message":"Bad Request"}'))
        if body is not None and len(body) > MAX_BODY:
            return self._send(h, inv.HttpResult(413, {"content-type": "application/json"}, [],
                                                b'{"message":"Request Entity Too Large"}'))
        headers: dict[str, str] = {}
        for k, v in h.headers.items():
            lk = k.lower()
            if lk in ("connection", "transfer-encoding", "keep-alive"):
                continue
            if lk in headers:
                v = f"{headers[lk]}{'; ' if lk == 'cookie' else ','}{v}"
            headers[lk] = v
        pre = self.cors.preflight(method, headers) if self.cors is not None else None
        if pre is not None:  # answered by the gateway for any path (cors.py)
            status, cors_headers = pre
            self._send(h, inv.HttpResult(status, cors_headers, [], b""), head=True)
            log.info("%s %s %s -> %d preflight%s", self.svc.name, method, h.path, status,
                     "" if cors_headers else " (origin, method or headers not allowed)")
            return None
        local = self._local_route(method, path)
        if local is None and self.pages is not None:
            local = self.pages(method, path, raw_query, headers)
        if local is not None:
            return self._send(h, local, head=method == "HEAD", request_headers=headers)
        client_ip = h.client_address[0]
        headers.setdefault("x-forwarded-for", client_ip)
        headers.setdefault("x-forwarded-proto", "http")
        headers.setdefault("x-forwarded-port", str(self.port))
        try:
            result = inv.dispatch(self.svc, method, path, raw_query, headers, body, source_ip=client_ip,
                                  invoker=self.invoker)
        except Exception:  # noqa: BLE001 - what API Gateway answers when the function errors
            log.exception("%s %s %s: function error", self.svc.name, method, path)
            result = inv.HttpResult(500, {"content-type": "application/json"}, [],
                                    b'{"message":"Internal Server Error"}')
        self._send(h, result, head=method == "HEAD", request_headers=headers)
        log.info("%s %s %s -> %d (%.0f ms)", self.svc.name, method, h.path, result.status,
                 (time.monotonic() - started) * 1000)

    def _local_route(self, method: str, path: str) -> inv.HttpResult | None:
        if method != "GET":
            return None
        if path == "/openapi.json":
            if self._openapi_cache is None:
                self._openapi_cache = json.dumps(self.openapi()).encode()
            return inv.HttpResult(200, {"content-type": "application/json"}, [], self._openapi_cache)
        if path in ("/docs", "/docs/"):
            return inv.HttpResult(200, {"content-type": "text/html; charset=utf-8"}, [],
                                  DOCS_HTML.format(title=self.svc.name).encode())
        if path == "/docs/init.js":
            return inv.HttpResult(200, {"content-type": "application/javascript"}, [], DOCS_INIT.encode())
        if path.startswith("/docs/"):
            base = swagger_dir()
            name = path[len("/docs/"):]
            if base is None or "/" in name or name.startswith("."):
                return None
            f = base / name
            if not f.is_file():
                return None
            ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
            return inv.HttpResult(200, {"content-type": ctype, "cache-control": "max-age=3600"}, [], f.read_bytes())
        return None

    def _send(self, h: BaseHTTPRequestHandler, r: inv.HttpResult, *, head: bool = False,
              request_headers: dict[str, str] | None = None) -> None:
        out = r.headers
        if self.cors is not None and request_headers is not None:
            out = self.cors.decorate(request_headers, r.headers)
        h.send_response(r.status)
        for k, v in out.items():
            if k in ("content-length", "connection", "transfer-encoding"):
                continue
            h.send_header(k, v)
        for c in r.cookies:
            h.send_header("Set-Cookie", c)
        h.send_header("Content-Length", str(len(r.body)))
        h.send_header("apigw-requestid", "local")
        h.end_headers()
        if not head:
            h.wfile.write(r.body)
