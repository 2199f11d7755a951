"""Issue 30: the Node.js receiver of docs/campaigns-webhooks.md (``standardwebhooks`` from npm, a whole
``node:http`` server) receives real deliveries over HTTP: it answers 204 to a test delivery, an event
and a delivery during rotation, and 401 when it holds another secret.

Skipped where ``node`` is absent; in CI (``CI_REQUIRE_TOOLS=1``) a missing ``node``/``npm`` or a
failed ``npm install`` fails the test. The package is installed once into ``.local/npm-standardwebhooks``."""
from __future__ import annotations

import base64
import fcntl
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.tooling import require_binary, tools_required

from .receivers import example

ROOT = Path(__file__).resolve().parents[3]
PREFIX = ROOT / ".local" / "npm-standardwebhooks"
NPM_PACKAGE = "standardwebhooks@1.1.1"


@pytest.fixture(scope="module")
def node_prefix() -> Path:
    require_binary("node", "nodejs")
    npm = require_binary("npm", "nodejs")
    PREFIX.mkdir(parents=True, exist_ok=True)
    with open(PREFIX / ".lock", "w") as lock:  # xdist workers share the folder: one installs
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (PREFIX / "node_modules" / "standardwebhooks" / "package.json").exists():
            r = subprocess.run([npm, "install", "--prefix", str(PREFIX), "--no-audit", "--no-fund", "--no-save",
                                NPM_PACKAGE], capture_output=True, text=True, timeout=300)
            if r.returncode != 0:
                msg = f"npm install {NPM_PACKAGE} failed: {r.stderr[-2000:]}"
                pytest.fail(msg) if tools_required() else pytest.skip(msg)
        script = PREFIX / "receiver.js"
        tmp = script.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(example("node"), encoding="utf-8")
        tmp.replace(script)
    return PREFIX


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class NodeReceiver:
    """``node receiver.js`` (the documented example) holding ``secret``, listening on ``port``."""

    def __init__(self, prefix: Path, secret: str, port: int) -> None:
        self.port = port
        env = {**os.environ, "WEBHOOK_SECRET": secret, "PORT": str(self.port)}
        self.proc = subprocess.Popen(["node", str(prefix / "receiver.js")], cwd=prefix, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                assert self.proc.poll() is None, self.proc.stderr.read() if self.proc.stderr else ""
                time.sleep(0.05)
        raise AssertionError("the node receiver did not start listening")

    def stop(self) -> str:
        self.proc.terminate()
        out, _ = self.proc.communicate(timeout=10)
        return out


def _hook(camp, url: str) -> dict:
    r = camp.post("/webhooks", json={"name": "node", "url": url, "events": ["campaign.created"]})
    assert r.status == 201, r.text
    return r.json()["data"]


def test_node_receiver_verifies_deliveries(node_prefix, camp, new_campaign, pipe):
    # The secret is generated at creation: create the webhook, then start the receiver holding it
    # on the port the webhook names.
    port = _free_port()
    url = f"http://127.0.0.1:{port}/hooks/campaigns"
    w = _hook(camp, url)
    rx = NodeReceiver(node_prefix, w["secret"], port)
    try:
        res = camp.post(f"/webhooks/{w['id']}/test").json()["data"]
        assert res["success"] is True and res["status_code"] == 204, res
        cid = new_campaign()
        pipe.webhooks_all()
        [d] = [x for x in camp.get(f"/webhooks/{w['id']}/deliveries").json()["data"]["deliveries"]
               if x["event"] == "campaign.created"]
        assert d["status"] == "delivered" and d["last_status_code"] == 204
        # during a rotation's grace the receiver, still holding the old secret, verifies
        camp.post(f"/webhooks/{w['id']}/rotate-secret")
        assert camp.post(f"/webhooks/{w['id']}/test").json()["data"]["status_code"] == 204
    finally:
        out = rx.stop()
    assert f"msg_{d['id']} campaign.created" in out and cid


def test_node_receiver_refuses_another_secret(node_prefix, camp):
    port = _free_port()
    w = _hook(camp, f"http://127.0.0.1:{port}/hooks/campaigns")
    rx = NodeReceiver(node_prefix, "whsec_" + base64.b64encode(b"\x07" * 32).decode(), port)
    try:
        res = camp.post(f"/webhooks/{w['id']}/test").json()["data"]
        assert res["success"] is False and res["status_code"] == 401, res
    finally:
        rx.stop()
