"""End to end: the real `python -m local_runtime` process, driven over HTTP and SQS/S3.

The fixture application (tests/platform/fixtures/app) has an echo HTTP function, a queue
consumer that fails on demand, an S3 → SQS notification and a schedule. The scheduler
runs with compressed minutes (LOCAL_SCHEDULER_MINUTE_SECONDS).
"""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import boto3
import pytest
import requests

from tests.platform.runtime_proc import ROOT, RuntimeProcess

FIXTURE = Path(__file__).parent / "fixtures" / "app" / "template.yaml"


def wait_for(fn, timeout=15.0, every=0.1):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"timed out; last={last!r}")


@pytest.fixture(scope="module")
def fixture_rt(tmp_path_factory):
    rt = RuntimeProcess(tmp_path_factory.mktemp("fixture-rt"), FIXTURE, services=("fixturesvc",),
                        extra_env={"LOCAL_SCHEDULER_MINUTE_SECONDS": "0.5"})
    try:
        dev = rt.wait_ready()
        yield rt, dev
    finally:
        code = rt.stop()
        assert code == 0, rt.log.read_text()[-3000:]
        assert b"Stopped." in rt.log.read_bytes()


def _aws(rt, name):
    return boto3.client(name, endpoint_url=f"http://127.0.0.1:{rt.emulator_port}", region_name="us-east-1",
                        aws_access_key_id="local", aws_secret_access_key="local")


def _state(base, pk):
    r = requests.get(f"{base}/state/{pk}", timeout=5)
    return r.json() if r.status_code == 200 else None


def test_dev_json_and_request_reaches_handler(fixture_rt):
    rt, dev = fixture_rt
    assert dev["aws"] == {"endpoint_url": f"http://127.0.0.1:{rt.emulator_port}", "region": "us-east-1"}
    base = dev["fixturesvc"]["base_url"]
    # devseed ran against the emulator and its fields follow base_url in the service's block
    assert list(dev["fixturesvc"]) == ["base_url", "api_key", "extra", "cors_origins"]
    assert dev["fixturesvc"]["cors_origins"] == []  # its HttpApi has no CorsConfiguration
    assert dev["fixturesvc"]["api_key"] == "fixture-key" and _state(base, "SEED")["n"] == 1
    r = requests.get(f"{base}/echo?a=1&a=2&b=", headers={"Cookie": "sid=1; other=2"}, timeout=5)
    assert r.status_code == 200
    e = r.json()
    assert e["routeKey"] == "GET /echo" and e["query"] == {"a": "1,2", "b": ""}
    assert e["cookies"] == ["sid=1", "other=2"] and e["function"] == "fixturesvc-EchoFunction"
    assert e["stage"] == "local" and 0 < e["remaining_ms"] <= 10_000
    assert r.raw.headers.get_all("Set-Cookie") == ["session=abc; Path=/; HttpOnly", "theme=dark; Path=/"]


def test_path_params_literal_precedence_and_404(fixture_rt):
    rt, dev = fixture_rt
    base = dev["fixturesvc"]["base_url"]
    assert requests.get(f"{base}/echo/export", timeout=5).json()["routeKey"] == "GET /echo/export"
    r = requests.post(f"{base}/echo/42", data=b"{}", headers={"content-type": "application/json"}, timeout=5)
    assert r.json()["pathParameters"] == {"id": "42"} and r.json()["isBase64Encoded"] is False
    r = requests.get(f"{base}/echo/42", timeout=5)  # only POST is declared for /echo/{id}
    assert r.status_code == 404 and r.json() == {"fixture_error": {"code": "NOT_FOUND", "message": "Route GET /echo/42 not found"}}


def test_multipart_and_binary_bodies_round_trip(fixture_rt):
    rt, dev = fixture_rt
    base = dev["fixturesvc"]["base_url"]
    blob = bytes(range(256)) * 40
    r = requests.post(f"{base}/echo/up", files={"file": ("a.bin", blob, "application/octet-stream")},
                      data={"name": "x"}, timeout=5)
    e = r.json()
    assert e["isBase64Encoded"] is True and e["contentType"].startswith("multipart/form-data; boundary=")
    sent = r.request.body
    assert e["bodyLength"] == len(sent) and e["bodySha"] == hashlib.sha256(sent).hexdigest()
    png = requests.get(f"{base}/bin", timeout=5)
    assert png.headers["content-type"] == "image/png" and png.content.startswith(b"\x89PNG")


def test_redirect_passes_through(fixture_rt):
    rt, dev = fixture_rt
    base = dev["fixturesvc"]["base_url"]
    r = requests.get(f"{base}/go", allow_redirects=False, timeout=5)
    assert r.status_code == 302 and r.headers["location"] == "/echo?from=go"
    assert requests.get(f"{base}/go", timeout=5).json()["query"] == {"from": "go"}


def test_queue_message_reaches_consumer_and_failures_go_to_dlq(fixture_rt):
    rt, dev = fixture_rt
    base = dev["fixturesvc"]["base_url"]
    assert requests.post(f"{base}/enqueue", json={"messages": ["ok-1", "fail-1"]}, timeout=5).status_code == 202
    ok = wait_for(lambda: _state(base, "MSG%23ok-1"))
    assert ok["n"] == 1
    sqs = _aws(rt, "sqs")
    dlq = sqs.get_queue_url(QueueName="fixturesvc-WorkDLQ")["QueueUrl"]

    def dead():
        got = sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
        return got

    msgs = wait_for(dead, timeout=20)
    assert [m["Body"] for m in msgs] == ["fail-1"]
    failed = _state(base, "MSG%23fail-1")
    assert failed["n"] == 2  # maxReceiveCount: 2 deliveries, then the DLQ
    time.sleep(1.5)
    assert _state(base, "MSG%23ok-1")["n"] == 1  # the successful one was deleted, never redelivered


def test_s3_notification_reaches_consumer(fixture_rt):
    rt, dev = fixture_rt
    base = dev["fixturesvc"]["base_url"]
    s3 = _aws(rt, "s3")
    s3.put_object(Bucket="fixturesvc-uploads-local", Key="other/skip.csv", Body=b"x")
    s3.put_object(Bucket="fixturesvc-uploads-local", Key="incoming/a.csv", Body=b"a,b\n")
    assert wait_for(lambda: _state(base, "S3%23incoming%2Fa.csv"))["n"] == 1
    assert _state(base, "S3%23other%2Fskip.csv") is None


def test_schedule_fires_and_invoke_command(fixture_rt, tmp_path):
    rt, dev = fixture_rt
    base = dev["fixturesvc"]["base_url"]
    tick = wait_for(lambda: (s := _state(base, "TICK")) and s["n"] >= 2 and s, timeout=10)
    assert tick["last_job"] == "tick"
    runtime_json = rt.dev_json.parent / "runtime.json"
    out = subprocess.run([sys.executable, "-m", "local_runtime.control", "invoke", "TickFunction",
                          "--runtime-json", str(runtime_json)], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["result"] == {"ok": True}
    ev = tmp_path / "ev.json"
    ev.write_text('{"job": "manual"}')
    subprocess.run([sys.executable, "-m", "local_runtime.control", "invoke", "fixturesvc.TickFunction",
                    "--event", str(ev), "--runtime-json", str(runtime_json)], cwd=ROOT, check=True,
                   capture_output=True, timeout=30)
    assert _state(base, "TICK")["last_job"] in ("manual", "tick")
    bad = subprocess.run([sys.executable, "-m", "local_runtime.control", "invoke", "NoSuchFunction",
                          "--runtime-json", str(runtime_json)], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert bad.returncode == 1 and "no function" in bad.stderr


def test_docs_and_openapi_are_local_only(fixture_rt):
    rt, dev = fixture_rt
    base = dev["fixturesvc"]["base_url"]
    html = requests.get(f"{base}/docs", timeout=5)
    assert html.status_code == 200 and "swagger-ui" in html.text
    assert not re.search(r"(src|href)=\"(https?:)?//", html.text)  # nothing from another host
    for asset in re.findall(r"(?:src|href)=\"(/docs/[^\"]+)\"", html.text):
        r = requests.get(f"{base}{asset}", timeout=5)
        assert r.status_code == 200 and len(r.content) > 0, asset
    init = requests.get(f"{base}/docs/init.js", timeout=5).text
    assert 'url: "/openapi.json"' in init and "http" not in init
    doc = requests.get(f"{base}/openapi.json", timeout=5).json()
    assert doc["openapi"].startswith("3.") and doc["x-missing-functions"] == ["EchoFunction"]
    assert requests.get(f"{base}/docs/../template.yaml", timeout=5).status_code == 404


def test_real_application_comes_up_with_health_in_service_formats(tmp_path):
    rt = RuntimeProcess(tmp_path, services=("campaigns", "exams", "internships"))
    try:
        t0 = time.monotonic()
        dev = rt.wait_ready(timeout=60)
        assert time.monotonic() - t0 < 60
        assert set(dev) >= {"aws", "campaigns", "exams", "internships"}
        c = requests.get(dev["campaigns"]["base_url"] + "/health", timeout=5)
        assert c.status_code == 200 and c.json()["success"] is True and c.json()["data"]["status"] == "healthy"
        e = requests.get(dev["exams"]["base_url"] + "/health", timeout=5)
        assert e.status_code == 200 and e.json()["data"]["status"] == "healthy"
        assert requests.get(dev["exams"]["base_url"] + "/", timeout=5).json()["data"]["name"]
        i = requests.get(dev["internships"]["base_url"] + "/api/health", timeout=5)
        assert i.status_code == 200 and i.json()["status"] == "healthy"
        nf = requests.get(dev["campaigns"]["base_url"] + "/nope", timeout=5)
        assert nf.status_code == 404 and nf.json()["success"] is False and nf.json()["error"]["code"] == "NOT_FOUND"
        # any other method (found by fuzzing: TRACE got http.server's HTML 501) is an unmatched route
        for method in ("TRACE", "QUERY", "PROPFIND"):
            tr = requests.request(method, dev["campaigns"]["base_url"] + "/health", timeout=5)
            assert tr.status_code == 404 and tr.json()["error"]["code"] == "NOT_FOUND", method
        doc = requests.get(dev["exams"]["base_url"] + "/openapi.json", timeout=10).json()
        assert "/health" in doc["paths"]
    finally:
        assert rt.stop() == 0
