"""Test support: provision the templates into moto and call routes through the real handlers.

``AppUnderTest`` is what the ``app`` pytest fixture yields: ``app.campaigns.get("/health")``
builds the same payload-2.0 event the deployed HTTP API would send to the function that
the template routes that path to, and returns an ``HttpResult``.

Speed: ``Harness`` keeps one moto mock per test process. Between tests it resets every
moto backend (a fresh account, as a new ``mock_aws`` would give) except Cognito, whose
pools it keeps and empties (creating a pool costs ~140 ms), and re-creates the
resources from the templates with cached clients (~10-40 ms per service).
"""
from __future__ import annotations

import json as _json
import os
from typing import Any
from urllib.parse import urlencode

from . import invoke as inv
from .provision import Clients, ServiceEnv, provision
from .stack import REGION, Service, load_all

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
            if not any(k.lower() == "content-type" for k in hdrs):
                hdrs["content-type"] = "application/json"
        elif isinstance(body, str):
            data = body.encode()
        else:
            data = body
        return inv.dispatch(self.svc, method.upper(), path, raw_query, hdrs, data, source_ip=source_ip)

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


def export_env(svc: Service, env: ServiceEnv) -> None:
    for lid in svc.functions:
        os.environ.update(env.function_env(lid))


def reset_runtime_caches() -> None:
    """Forget what the process cached between tests (settings, clock offset, used-up rate windows)."""
    from lambdakit import clock, ratelimit, settings

    clock.set_offset(0)
    settings.reset_settings()
    ratelimit.forget()


def start(only: list[str] | None = None, *, clients: Clients | None = None,
          pools: dict[str, ServiceEnv] | None = None) -> AppUnderTest:
    """Provision the services (inside an active moto mock or against AWS_ENDPOINT_URL),
    export the functions' environment, and return clients."""
    svcs = services()
    envs: dict[str, ServiceEnv] = {}
    for name, svc in svcs.items():
        if only and name not in only:
            continue
        envs[name] = provision(svc, LOCAL_PARAMS.get(name, {}), clients=clients,
                               reuse_pools=(pools or {}).get(name))
        export_env(svc, envs[name])
    inv.ensure_paths(code_dirs=[s.dir for s in svcs.values()])
    if clients is None:
        from lambdakit import aws

        aws.reset()
    reset_runtime_caches()
    picked = {n: s for n, s in svcs.items() if n in envs}
    return AppUnderTest(picked, envs)


class Harness:
    """One moto mock per test process, reset between tests (see module docstring)."""

    def __init__(self) -> None:
        self._mock: Any = None
        self.clients: Clients | None = None
        #: Services whose Cognito pools exist in the (kept) Cognito backend.
        self.pools: dict[str, ServiceEnv] = {}

    def _ensure_mock(self) -> None:
        if self._mock is None:
            from moto import mock_aws

            from .emulator import install_transaction_token_replay

            install_transaction_token_replay()
            self._mock = mock_aws()
            self._mock.start()
            self.clients = Clients()

    def stop(self) -> None:
        if self._mock is not None:
            self._mock.stop()
            self._mock = None
            self.pools.clear()

    def fresh_account(self) -> None:
        """Every moto backend empty (what a new ``mock_aws()`` gives)."""
        self._ensure_mock()
        from moto.core.base_backend import BackendDict

        BackendDict.reset()
        self.pools.clear()

    def _reset_keeping_pools(self) -> None:
        from moto.cognitoidp.models import cognitoidp_backends
        from moto.core.base_backend import BackendDict, backend_lock

        with backend_lock:
            for backend in list(BackendDict._instances):  # type: ignore[misc]
                if backend is cognitoidp_backends:
                    continue
                for account_specific in backend.values():
                    account_specific.reset()
                backend.clear()
        assert self.clients is not None
        idp = self.clients("cognito-idp")
        keep = {env.refs[lid] for env in self.pools.values()
                for lid in env.service.resources_of("AWS::Cognito::UserPool")}
        for page in idp.get_paginator("list_user_pools").paginate(MaxResults=60):
            for pool in page["UserPools"]:
                if pool["Id"] not in keep:
                    idp.delete_user_pool(UserPoolId=pool["Id"])
        template_groups = {g for env in self.pools.values() for g in env.groups}
        for pool_id in keep:
            for page in idp.get_paginator("list_users").paginate(UserPoolId=pool_id):
                for user in page["Users"]:
                    idp.admin_delete_user(UserPoolId=pool_id, Username=user["Username"])
            for page in idp.get_paginator("list_groups").paginate(UserPoolId=pool_id):
                for g in page["Groups"]:
                    if (pool_id, g["GroupName"]) not in template_groups:
                        idp.delete_group(UserPoolId=pool_id, GroupName=g["GroupName"])

    def app(self, only: list[str] | None = None) -> AppUnderTest:
        self._ensure_mock()
        self._reset_keeping_pools()
        app = start(only, clients=self.clients, pools=self.pools)
        for name, env in app.envs.items():
            if env.service.resources_of("AWS::Cognito::UserPool"):
                self.pools[name] = env
        # S3 sends an s3:TestEvent to each notification queue when notifications are set up
        # (as AWS does); start every test with empty queues.
        assert self.clients is not None
        sqs = self.clients("sqs")
        for env in app.envs.values():
            for lid in env.service.resources_of("AWS::SQS::Queue"):
                sqs.purge_queue(QueueUrl=env.refs[lid])
        return app


HARNESS = Harness()

__all__ = ["AppUnderTest", "Harness", "HARNESS", "LOCAL_PARAMS", "REGION", "ServiceClient", "services", "start"]
