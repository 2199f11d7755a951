"""One real ``python -m local_runtime`` (as ``make dev`` starts it) for the whole session, on
free ports, with its own ``dev.json``. The only change from ``make dev``: the direct-download
cap of exports is lowered (``INTERNSHIPS_EXPORT_DIRECT_MAX_ROWS``) so a "large" export takes the
S3 path with a handful of rows instead of thousands."""
from __future__ import annotations

from dataclasses import dataclass

import pytest
import requests

from tests.e2e.costseed import maybe_seed
from tests.platform.runtime_proc import RuntimeProcess

DIRECT_MAX_ROWS = 5


@dataclass
class Front:
    base: str
    dev: dict
    rt: RuntimeProcess

    def call(self, method: str, path: str, token: str | None = None, **kw) -> requests.Response:
        headers = dict(kw.pop("headers", None) or {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return requests.request(method, self.base + path, headers=headers, timeout=60, **kw)

    def login(self, email: str, password: str) -> str:
        r = self.call("POST", "/api/auth/login", json={"email": email, "password": password})
        assert r.status_code == 200, r.text
        return r.json()["token"]


@pytest.fixture(scope="session")
def intern_front(tmp_path_factory):
    rt = RuntimeProcess(tmp_path_factory.mktemp("intern-admin-rt"), services=("campaigns", "exams", "internships"),
                        extra_env={"INTERNSHIPS_EXPORT_DIRECT_MAX_ROWS": str(DIRECT_MAX_ROWS)})
    try:
        dev = rt.wait_ready(timeout=120)
        maybe_seed(dev, "internships")
        yield Front(dev["internships"]["base_url"], dev, rt)
    finally:
        code = rt.stop()
        assert code == 0, rt.log.read_text()[-3000:]
