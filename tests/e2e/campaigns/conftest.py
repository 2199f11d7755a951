"""End-to-end fixtures: one real ``python -m local_runtime`` (as ``make dev`` starts it: the
repository's root template, every service) for the whole session, on free ports, driven over
HTTP with the ``.local/dev.json``-style bootstrap key; plus a webhook receiver on 127.0.0.1."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import boto3
import pytest
import requests

from tests.e2e.costseed import maybe_seed
from tests.platform.runtime_proc import RuntimeProcess


class Api:
    """The campaigns front, with the bootstrap key as default credentials."""

    def __init__(self, base_url: str, key: str) -> None:
        self.base, self.key = base_url, key
        self.s = requests.Session()

    def __call__(self, method: str, path: str, *, key: str | None = "default", **kw) -> requests.Response:
        headers = dict(kw.pop("headers", None) or {})
        if key is not None:
            headers.setdefault("Authorization", f"Bearer {self.key if key == 'default' else key}")
        url = path if path.startswith("http") else self.base + path
        return self.s.request(method, url, headers=headers, timeout=90, allow_redirects=False, **kw)

    def get(self, path, **kw):
        return self("GET", path, **kw)

    def post(self, path, **kw):
        return self("POST", path, **kw)

    def put(self, path, **kw):
        return self("PUT", path, **kw)

    def delete(self, path, **kw):
        return self("DELETE", path, **kw)


class Runtime:
    def __init__(self, proc: RuntimeProcess, dev: dict) -> None:
        self.proc, self.dev = proc, dev
        self.api = Api(dev["campaigns"]["base_url"], dev["campaigns"]["api_key"])
        runtime_json = json.loads((proc.dev_json.parent / "runtime.json").read_text())
        self.control_url = runtime_json["control_url"]

    def invoke(self, function: str, event: dict | None = None) -> dict:
        r = requests.post(f"{self.control_url}/invoke", json={"function": function, "service": "campaigns",
                                                                "event": event}, timeout=120)
        assert r.status_code == 200, r.text
        return r.json()

    def aws(self, name: str):
        return boto3.client(name, endpoint_url=self.dev["aws"]["endpoint_url"], region_name=self.dev["aws"]["region"],
                            aws_access_key_id="local", aws_secret_access_key="local")


@pytest.fixture(scope="session")
def rt(tmp_path_factory):
    # Exports above 50 rows run as jobs (default bound 5,000): the scenario's exports (300+ rows)
    # take the asynchronous path through the real queue wiring, at any seeded size.
    proc = RuntimeProcess(tmp_path_factory.mktemp("campaigns-e2e"), services=("campaigns", "exams", "internships"),
                          extra_env={"CAMPAIGNS_EXPORT_INLINE_MAX_ROWS": "50"})
    try:
        dev = proc.wait_ready(timeout=120)
        maybe_seed(dev, "campaigns")
        yield Runtime(proc, dev)
    finally:
        proc.stop()


@pytest.fixture(scope="session")
def api(rt) -> Api:
    return rt.api


class Receiver:
    """Webhook receiver on 127.0.0.1: ``/ok`` always answers 200, ``/flaky`` answers 500 to the
    first 3 attempts of each event (by ``webhook-id``) then 200, ``/dead`` always 500."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.flaky_seen: dict[str, int] = {}
        outer = self

        class H(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                with outer.lock:
                    outer.requests.append({"path": self.path, "body": body, "at": time.time(),
                                           "headers": {k.lower(): v for k, v in self.headers.items()}})
                    code = 200
                    if self.path == "/dead":
                        code = 500
                    elif self.path == "/flaky":
                        wid = self.headers.get("webhook-id", "")
                        outer.flaky_seen[wid] = outer.flaky_seen.get(wid, 0) + 1
                        code = 500 if outer.flaky_seen[wid] <= 3 else 200
                self.send_response(code)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *a):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def at(self, path: str) -> list[dict]:
        with self.lock:
            return [r for r in self.requests if r["path"] == path]

    def events(self, path: str) -> list[dict]:
        return [json.loads(r["body"]) for r in self.at(path)]


@pytest.fixture(scope="session")
def receiver():
    r = Receiver()
    yield r
    r.server.shutdown()

