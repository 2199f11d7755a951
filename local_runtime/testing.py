"""Test support: provision the templates into moto and call routes through the real handlers.

``AppUnderTest`` is what the ``app`` pytest fixture yields: ``app.campaigns.get("/health")``
builds the same payload-2.0 event the deployed HTTP API would send to the function that
the template routes that path to, and returns an ``HttpResult``.
"""
from __future__ import annotations

import json as _json
import os
from typing import Any
from urllib.parse import urlencode

from . import invoke as inv
from .provision import ServiceEnv, provision
from .stack import Service, load_all

LOCAL_PARAMS = {
    "campaigns": {"Stage": "local", "PublicBaseUrl": "http://127.0.0.1:3001"},
    "exams": {"Stage": "local", "PublicBaseUrl": "http://127.0.0.1:3002"},
    "internships": {"Stage": "local", "PublicBaseUrl": "http://127.0.0.1:3003", "PaymentProvider": "sandbox",
                    "FrontendUrl": "http://127.0.0.1:3003"},
}


class ServiceClient:
    def __init__(self, svc: Service, env: ServiceEnv) -> None:
        self.svc = svc
        self.env = env
        self.default_headers: dict[str, str] = {}

    def request(self, method: str, path: str, *, json: Any = None, body: bytes | str | None = None,
                headers: dict[str, str] | None = None, query: dict[str, Any] | None = None,
                source_ip: str = "127.0.0.1") -> inv.HttpResult:
        path, _, raw_query = path.partition("?")
        if query:
            extra = urlencode({k: v for k, v in query.items() if v is not None}, doseq=True)
            raw_query = f"{raw_query}&{extra}" if raw_query else extra
        hdrs = {**self.default_headers, **(headers or {})}
        data: bytes | None
        if json is not None:
            data = _json.dumps(json).encode()
            hdrs.setdefault("content-type", "application/json")
        elif isinstance(body, str):
            data = body.encode()
        else:
            data = body
        match = self.svc.match(method.upper(), path)
        if match is None:
            return inv.HttpResult(404, {"content-type": "application/json"}, [], b'{"message":"Not Found"}')
        route, params = match
        event = inv.build_http_event(route, params, method.upper(), path, raw_query, hdrs, data, source_ip=source_ip)
        return inv.to_http_result(inv.invoke(self.svc.functions[route.function], event))

    def get(self, path: str, **kw: Any) -> inv.HttpResult:
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> inv.HttpResult:
        return self.request("POST", path, **kw)

    def put(self, path: str, **kw: Any) -> inv.HttpResult:
        return self.request("PUT", path, **kw)

    def patch(self, path: str, **kw: Any) -> inv.HttpResult:
        return self.request("PATCH", path, **kw)

    def delete(self, path: str, **kw: Any) -> inv.HttpResult:
        return self.request("DELETE", path, **kw)

    def invoke_function(self, logical_id: str, event: dict) -> Any:
        """Call a non-HTTP function (queue worker, schedule) with a raw event."""
        return inv.invoke(self.svc.functions[logical_id], event)


class AppUnderTest:
    def __init__(self, services: dict[str, Service], envs: dict[str, ServiceEnv]) -> None:
        self.services = services
        self.envs = envs
        self.clients = {n: ServiceClient(services[n], envs[n]) for n in services}

    def __getattr__(self, name: str) -> ServiceClient:
        try:
            return self.__dict__["clients"][name]
        except KeyError:
            raise AttributeError(name) from None


_SERVICES: dict[str, Service] | None = None


def services() -> dict[str, Service]:
    global _SERVICES
    if _SERVICES is None:
        _SERVICES = load_all()
    return _SERVICES


def start(only: list[str] | None = None) -> AppUnderTest:
    """Provision every service (inside an active moto mock or against AWS_ENDPOINT_URL),
    export the functions' environment, and return clients."""
    svcs = services()
    envs: dict[str, ServiceEnv] = {}
    for name, svc in svcs.items():
        if only and name not in only:
            continue
        envs[name] = provision(svc, LOCAL_PARAMS.get(name, {}))
        for lid in svc.functions:
            os.environ.update(envs[name].function_env(lid))
    inv.ensure_paths(code_dirs=[s.dir for s in svcs.values()])
    from lambdakit import aws, settings

    aws.reset()
    settings.reset_settings()
    picked = {n: s for n, s in svcs.items() if n in envs}
    return AppUnderTest(picked, envs)
