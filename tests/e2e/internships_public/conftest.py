"""End to end against the local runtime started as ``make dev`` starts it (``python -m local_runtime``
in a subprocess), driven only over HTTP through the internships front.

Ports: this slice's own range (campaigns 4311, exams 4312, internships 4313, emulator 4366,
control 4399), overridable with ``E2E_PORT_*`` variables, so it never collides with a developer's
``make dev`` on the defaults.

Two template parameters are set as ``sam deploy --parameter-overrides`` would (the runtime takes
parameters from ``local_runtime.testing.LOCAL_PARAMS``, which the boot snippet below extends before
calling the runtime's own ``main``): ``JobsRssFeeds`` (the fixture feed) and ``PublicBaseUrl`` /
``FrontendUrl`` (this run's port). And one deliberate difference: the EmailWorkerFunction queue
consumer is not started, so queued emails wait for the ``process-emails`` sweep — the path the
issue's "process-emails sends it" checks (with the worker polling, it would race the cron for the
same email). The worker path is covered by ``tests/internships/engage``.

A tiny threading HTTP server on 127.0.0.1 serves the fixture job feed configured as
``INTERNSHIPS_JOBS_RSS_FEEDS`` (loopback fetches are allowed only when Stage is local).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from tests.e2e.costseed import maybe_seed
from tests.platform.runtime_proc import ROOT

FEED = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Fixture jobs</title><link>http://127.0.0.1/</link>
<description>Fixture</description>
<item><title>Python Backend Intern</title><link>https://jobs.example.com/python-backend-intern</link>
<description>Django and AWS Lambda</description><author>Acme Labs</author>
<pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item>
<item><title>Data Science Intern</title><link>https://jobs.example.com/data-science-intern</link>
<description>pandas</description><pubDate>Tue, 03 Nov 2026 10:00:00 GMT</pubDate></item>
</channel></rss>
"""


class _Feed(BaseHTTPRequestHandler):
    hits = 0

    def do_GET(self):  # noqa: N802
        type(self).hits += 1
        body = FEED.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture(scope="session")
def feed_server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Feed)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/jobs.rss"
    srv.shutdown()
    srv.server_close()


def _port(name: str, default: int) -> str:
    return os.environ.get(f"E2E_PORT_{name}", str(default))


BOOT = """
import json, os
from local_runtime import devserver, testing
testing.LOCAL_PARAMS["internships"] = {**testing.LOCAL_PARAMS["internships"],
                                       **json.loads(os.environ["E2E_INTERNSHIPS_PARAMS"])}
skip = set(os.environ["E2E_SKIP_CONSUMERS"].split(","))
_sources = devserver.event_sources
devserver.event_sources = lambda fn, *a, **k: [] if fn.logical_id in skip else _sources(fn, *a, **k)
devserver.main()
"""


@pytest.fixture(scope="session")
def runtime(tmp_path_factory, feed_server):
    tmp = tmp_path_factory.mktemp("intern-public-rt")
    dev_json, log = tmp / "dev.json", tmp / "runtime.log"
    port = _port("INTERNSHIPS", 4313)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "CAMPAIGNS_", "EXAMS_", "INTERNSHIPS_"))}
    env.update({"LOCAL_CAMPAIGNS_PORT": _port("CAMPAIGNS", 4311), "LOCAL_EXAMS_PORT": _port("EXAMS", 4312),
                "LOCAL_INTERNSHIPS_PORT": port, "LOCAL_EMULATOR_PORT": _port("EMULATOR", 4366),
                "LOCAL_CONTROL_PORT": _port("CONTROL", 4399), "LOCAL_DEV_JSON": str(dev_json),
                "PYTHONUNBUFFERED": "1", "E2E_SKIP_CONSUMERS": "EmailWorkerFunction",
                "E2E_INTERNSHIPS_PARAMS": json.dumps({"JobsRssFeeds": feed_server,
                                                      "PublicBaseUrl": f"http://127.0.0.1:{port}",
                                                      "FrontendUrl": f"http://127.0.0.1:{port}"})})
    proc = subprocess.Popen([sys.executable, "-c", BOOT], cwd=ROOT, env=env, stdout=open(log, "wb"),
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (b"Local runtime ready" in log.read_bytes() and dev_json.exists()):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"runtime did not start ({proc.poll()}):\n{log.read_text()[-3000:]}")
            time.sleep(0.1)
        dev = json.loads(dev_json.read_text())
        maybe_seed(dev, "internships")
        yield dev
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture(scope="session")
def intern(runtime):
    """``(base_url, dev.json internships block)``."""
    block = runtime["internships"]
    assert requests.get(block["base_url"] + "/api/health", timeout=5).status_code == 200
    return block["base_url"], block
