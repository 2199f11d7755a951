"""A real headless Chromium (Debian ``chromium`` + ``chromium-driver``, driven by selenium) against
the local runtime as ``make dev`` runs it (``python -m local_runtime`` on free ports).

Two tiny page servers on free ports stand in for a web app: the *allowed* one's origin is added
to every service's local ``AllowedOrigins`` through ``LOCAL_CORS_ORIGINS`` (the documented way to
add your app's origin to ``make dev``), the *blocked* one's is not. The runtime also runs with
``LOCAL_RATE_LIMITS=off`` (what ``make dev RATE_LIMITS=off`` sets). Every host but 127.0.0.1 is
unresolvable for the browser, so nothing leaves the machine.
"""
from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.platform.runtime_proc import RuntimeProcess
from tests.tooling import require_binary, require_module

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
PAGE = b"<!doctype html><html><head><meta charset='utf-8'><title>web app</title></head><body>app</body></html>"


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args) -> None:  # quiet
        pass


@pytest.fixture(scope="session")
def page_origins():
    """``(allowed origin, blocked origin)``: two page servers on free ports."""
    servers = [ThreadingHTTPServer(("127.0.0.1", 0), _Page) for _ in range(2)]
    for s in servers:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    yield tuple(f"http://127.0.0.1:{s.server_address[1]}" for s in servers)
    for s in servers:
        s.shutdown()
        s.server_close()


@pytest.fixture(scope="session")
def browser_runtime(tmp_path_factory, page_origins):
    """``(dev.json, its path)`` of a runtime with every service, the allowed page origin added."""
    tmp = tmp_path_factory.mktemp("browser-rt")
    rt = RuntimeProcess(tmp, services=("campaigns", "exams", "internships"),
                        extra_env={"LOCAL_CORS_ORIGINS": page_origins[0], "LOCAL_RATE_LIMITS": "off"})
    try:
        yield rt.wait_ready(timeout=120), rt.dev_json
    finally:
        code = rt.stop()
        assert code == 0, rt.log.read_text()[-3000:]


@pytest.fixture(autouse=True)
def _no_inprocess_moto():
    """boto3 calls here go to the runtime's emulator: stop the suite's in-process mock if running."""
    from local_runtime.testing import HARNESS

    HARNESS.stop()


@pytest.fixture
def browser(tmp_path: Path):
    chromium = require_binary("chromium")
    driver_bin = require_binary("chromedriver", "chromium-driver")
    require_module("selenium")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for f in FLAGS:
        opts.add_argument(f)
    opts.add_argument(f"--user-data-dir={tmp_path / 'profile'}")  # a fresh profile per test
    driver = webdriver.Chrome(options=opts, service=Service(executable_path=driver_bin))
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="session")
def demo(browser_runtime):
    """``make demo`` (tools/demo.py) run once against this runtime: what it created (its ``--json``)."""
    import json
    import subprocess
    import sys

    from tests.platform.runtime_proc import ROOT

    _, dev_json = browser_runtime
    done = subprocess.run([sys.executable, "tools/demo.py", "--dev-json", str(dev_json), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)
