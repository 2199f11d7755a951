"""End to end against the local runtime started as ``make dev`` starts it (``python -m local_runtime``
in a subprocess), driven only over HTTP through the internships front.

Ports: this slice's own range (campaigns 4311, exams 4312, internships 4313, emulator 4366,
control 4399), overridable with ``E2E_PORT_*`` variables, so it never collides with a developer's
``make dev`` on the defaults.

One deliberate difference from a plain ``make dev``: ``INTERNSHIPS_EMAIL_QUEUE_URL`` is empty,
so ``outbox.enqueue`` cannot hand emails to SQS and every email waits for the
``process-emails`` sweep (the path the issue's "process-emails sends it" checks; with the
queue worker polling, the worker would race the cron for the same email). The worker path is
covered by ``tests/internships/engage``.

A tiny threading HTTP server on 127.0.0.1 serves the fixture job feed configured as
``INTERNSHIPS_JOBS_RSS_FEEDS`` (loopback fetches are allowed only when Stage is local).
"""
from __future__ import annotations

import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from tests.platform.runtime_proc import RuntimeProcess

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


@pytest.fixture(scope="session")
def runtime(tmp_path_factory, feed_server):
    env = {"LOCAL_CAMPAIGNS_PORT": _port("CAMPAIGNS", 4311), "LOCAL_EXAMS_PORT": _port("EXAMS", 4312),
           "LOCAL_INTERNSHIPS_PORT": _port("INTERNSHIPS", 4313), "LOCAL_EMULATOR_PORT": _port("EMULATOR", 4366),
           "LOCAL_CONTROL_PORT": _port("CONTROL", 4399),
           "INTERNSHIPS_JOBS_RSS_FEEDS": feed_server, "INTERNSHIPS_EMAIL_QUEUE_URL": ""}
    rt = RuntimeProcess(tmp_path_factory.mktemp("intern-public-rt"), extra_env=env)
    rt.emulator_port = int(env["LOCAL_EMULATOR_PORT"])
    try:
        dev = rt.wait_ready(timeout=120)
        yield dev
    finally:
        code = rt.stop()
        assert code == 0, rt.log.read_text()[-3000:]


@pytest.fixture(scope="session")
def intern(runtime):
    """``(base_url, dev.json internships block)``."""
    block = runtime["internships"]
    assert requests.get(block["base_url"] + "/api/health", timeout=5).status_code == 200
    return block["base_url"], block
