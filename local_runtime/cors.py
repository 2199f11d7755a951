"""CORS as API Gateway's HTTP API does it, from the template's ``CorsConfiguration``.

With a ``CorsConfiguration`` on the service's ``AWS::Serverless::HttpApi`` (resolved with the
service's parameters, so ``AllowedOrigins`` is the same list locally and deployed; the templates
drop the whole block when no origin is configured, and then nothing here applies: a preflight is
an ordinary unmatched ``OPTIONS``, 404):

* a preflight (``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``) is answered by
  the gateway itself, for any path, whether or not a route matches: ``204`` and, when the origin,
  the requested method and the requested headers are allowed, ``Access-Control-Allow-Origin``,
  ``-Allow-Methods``, ``-Allow-Headers``, ``-Max-Age`` and ``-Allow-Credentials``; otherwise no
  CORS header at all (the browser then blocks the request);
* any other request carrying ``Origin`` gets, when the origin is allowed,
  ``Access-Control-Allow-Origin`` (the origin itself, or ``*`` when ``*`` is configured without
  credentials), ``Vary: Origin``, ``-Allow-Credentials`` and ``-Expose-Headers``; CORS headers the
  function returned are dropped either way (the gateway ignores the integration's);
* an ``OPTIONS`` that is not a preflight is routed as any other request.

Origins match exactly (scheme, host and port, case-insensitive), or by the gateway's wildcards:
``*`` (any origin), ``https://*`` and ``http://*`` (any origin of that scheme).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .stack import Service

_CORS_PREFIX = "access-control-"


def _items(c: dict, key: str) -> tuple[str, ...]:
    return tuple(str(x) for x in (c.get(key) or []) if str(x))


@dataclass(frozen=True)
class CorsConfig:
    allow_origins: tuple[str, ...]
    allow_methods: tuple[str, ...]
    allow_headers: tuple[str, ...]
    expose_headers: tuple[str, ...]
    allow_credentials: bool
    max_age: int | None

    @classmethod
    def of(cls, svc: Service, resolve: Callable[[Any], Any]) -> CorsConfig | None:
        """The (resolved) ``CorsConfiguration`` of the service's HTTP API, or None without one."""
        for res in svc.resources_of("AWS::Serverless::HttpApi").values():
            raw = (res.get("Properties") or {}).get("CorsConfiguration")
            if raw is None or raw is False:
                continue
            if raw is True:  # SAM's shorthand: every origin, header and method
                return cls(("*",), ("*",), ("*",), (), False, None)
            c = resolve(raw)  # the templates wrap it in !If: no origins configured, no CORS at all
            if not isinstance(c, dict):
                return None
            age = c.get("MaxAge")
            return cls(_items(c, "AllowOrigins"), tuple(m.upper() for m in _items(c, "AllowMethods")),
                       tuple(h.lower() for h in _items(c, "AllowHeaders")),
                       tuple(h.lower() for h in _items(c, "ExposeHeaders")),
                       str(c.get("AllowCredentials", False)).lower() == "true",
                       None if age is None or age == "" else int(age))
        return None

    def allowed_origin(self, origin: str) -> str | None:
        """The ``Access-Control-Allow-Origin`` value for ``origin``, or None when it is not allowed."""
        o = origin.strip().lower()
        if not o or o == "null":
            return "*" if "*" in self.allow_origins and not self.allow_credentials else None
        for allowed in self.allow_origins:
            a = allowed.strip().lower().rstrip("/")
            if a == "*":
                return origin if self.allow_credentials else "*"
            if a in ("https://*", "http://*") and o.startswith(a[:-1]):
                return origin
            if a == o:
                return origin
        return None

    def _method_allowed(self, method: str) -> bool:
        return "*" in self.allow_methods or method.upper() in self.allow_methods

    def _headers_allowed(self, requested: str) -> bool:
        if "*" in self.allow_headers:
            return True
        return all(h.strip().lower() in self.allow_headers for h in requested.split(",") if h.strip())

    def preflight(self, method: str, headers: dict[str, str]) -> tuple[int, dict[str, str]] | None:
        """``(204, headers)`` when the request is a preflight (the gateway answers it), else None."""
        origin = headers.get("origin")
        want = headers.get("access-control-request-method")
        if method != "OPTIONS" or not origin or not want:
            return None
        out: dict[str, str] = {}
        acao = self.allowed_origin(origin)
        requested = headers.get("access-control-request-headers", "")
        if acao and self._method_allowed(want) and self._headers_allowed(requested):
            out["access-control-allow-origin"] = acao
            if acao != "*":
                out["vary"] = "Origin"
            out["access-control-allow-methods"] = ",".join(self.allow_methods)
            if self.allow_headers:
                out["access-control-allow-headers"] = ",".join(self.allow_headers)
            if self.max_age is not None:
                out["access-control-max-age"] = str(self.max_age)
            if self.allow_credentials:
                out["access-control-allow-credentials"] = "true"
        return 204, out

    def decorate(self, request_headers: dict[str, str], response_headers: dict[str, str]) -> dict[str, str]:
        """The response's headers as the gateway sends them for this request (see the module doc)."""
        out = {k: v for k, v in response_headers.items() if not k.lower().startswith(_CORS_PREFIX)}
        origin = request_headers.get("origin")
        acao = self.allowed_origin(origin) if origin else None
        if acao is None:
            return out
        out["access-control-allow-origin"] = acao
        if acao != "*":
            vary = out.get("vary")
            if not vary:
                out["vary"] = "Origin"
            elif "origin" not in [v.strip().lower() for v in vary.split(",")]:
                out["vary"] = f"{vary}, Origin"
        if self.allow_credentials:
            out["access-control-allow-credentials"] = "true"
        if self.expose_headers:
            out["access-control-expose-headers"] = ",".join(self.expose_headers)
        return out
