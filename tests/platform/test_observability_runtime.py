"""Issue #18 items 2 and 3: correlation ids in logs and ``X-Request-Id`` on every response,
one wrapper for every non-HTTP entry point, and a Tracer that is a no-op off Lambda and
patches botocore only when the first client is created."""
from __future__ import annotations

import copy
import importlib
import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from local_runtime import invoke as inv

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
HEALTH = {"campaigns": ("http-campaigns-health.json", "campaigns.health.handler"),
          "exams": ("http-exams-root.json", "exams.health.handler"),
          "internships": ("http-internships-health.json", "internships.health.handler")}

# every non-HTTP entry point of the three templates (grep `def lambda_handler`)
WORKERS = {
    "campaigns": ["SendWorkerFunction", "FeedbackWorkerFunction", "ImportWorkerFunction", "DispatcherFunction",
                  "WebhookWorkerFunction"],
    "exams": ["AttemptSweepFunction", "AnalyticsWorkerFunction"],
    "internships": ["EmailWorkerFunction", "CronFunction"],
}


def load(name: str) -> dict:
    return json.loads((EVENTS / name).read_text())


class LogCapture:
    """Collect the JSON lines a service's Powertools logger writes during a block."""

    def __init__(self, logger) -> None:
        self.logger = logger
        self.buf = io.StringIO()
        self.handler = logging.StreamHandler(self.buf)
        self.handler.setFormatter(logger.registered_formatter)

    def __enter__(self) -> LogCapture:
        self.logger.addHandler(self.handler)
        return self

    def __exit__(self, *exc) -> None:
        self.logger.removeHandler(self.handler)

    @property
    def lines(self) -> list[dict]:
        return [json.loads(line) for line in self.buf.getvalue().splitlines() if line.strip()]


def _call(app, svc: str, event: dict):
    return inv.to_http_result(getattr(app, svc).invoke_function("HealthFunction", event))


@pytest.mark.parametrize("svc", sorted(HEALTH))
def test_request_id_header_on_ok_404_and_500(app, svc, monkeypatch):
    name, module = HEALTH[svc]
    ev = load(name)
    rid = ev["requestContext"]["requestId"]
    ok = _call(app, svc, ev)
    assert ok.status == 200 and ok.headers["x-request-id"] == rid

    missing = copy.deepcopy(ev)
    missing["rawPath"] = missing["requestContext"]["http"]["path"] = "/no-such-route"
    missing["requestContext"]["requestId"] = "req-404-abcdef"
    r = _call(app, svc, missing)
    assert r.status == 404 and r.headers["x-request-id"] == "req-404-abcdef"

    mod = importlib.import_module(module)

    def boom(*a, **k):
        raise RuntimeError("secret internals")

    # the health route's response builder (exams answers its health body flat as well: ok_flat)
    monkeypatch.setattr(mod, "ok_flat" if hasattr(mod, "ok_flat") else "ok", boom)
    ev500 = copy.deepcopy(ev)
    ev500["requestContext"]["requestId"] = "req-500-abcdef"
    r = _call(app, svc, ev500)
    assert r.status == 500 and r.headers["x-request-id"] == "req-500-abcdef"
    assert "secret internals" not in r.text


@pytest.mark.parametrize("svc", sorted(HEALTH))
def test_exception_escaping_the_resolver_is_a_500_in_the_service_format(app, svc, monkeypatch):
    name, module = HEALTH[svc]
    mod = importlib.import_module(module)

    def broken(event, context):
        raise RuntimeError("escaped")

    monkeypatch.setattr(mod.app, "resolve", broken)
    ev = load(name)
    r = _call(app, svc, ev)
    assert r.status == 500 and r.headers["x-request-id"] == ev["requestContext"]["requestId"]
    body = r.json()
    assert "escaped" not in r.text
    http = importlib.import_module(f"{svc}.http")
    from lambdakit.errors import ApiError

    expected = http.render_error(ApiError("Internal server error", code="SERVER_ERROR", status=500))
    assert set(body) == set(expected)


def test_exams_answers_the_gateway_request_id_and_logs_a_client_one(app):
    """Issue 18 item 3: X-Request-Id is the API Gateway request id on all three services; exams logs
    a valid client-sent id as ``client_request_id`` (so it finds the request's log lines) instead of
    echoing it."""
    http = importlib.import_module("exams.http")
    ev = load("http-exams-root.json")
    ev["headers"]["x-request-id"] = "client-chosen-1234"
    with LogCapture(http.logger) as cap:
        assert _call(app, "exams", ev).headers["x-request-id"] == ev["requestContext"]["requestId"]
        http.logger.info("inside the request")  # state persists until the next invocation
    assert cap.lines[-1].get("client_request_id") == "client-chosen-1234"
    assert cap.lines[-1].get("correlation_id") == ev["requestContext"]["requestId"]
    ev["headers"]["x-request-id"] = "bad id!"
    assert _call(app, "exams", ev).headers["x-request-id"] == ev["requestContext"]["requestId"]


@pytest.mark.parametrize("svc", sorted(HEALTH))
def test_every_log_line_of_a_request_carries_the_gateway_request_id(app, svc):
    name, _ = HEALTH[svc]
    http = importlib.import_module(f"{svc}.http")
    ev = load(name)
    ev["rawPath"] = ev["requestContext"]["http"]["path"] = "/no-such-route"
    with LogCapture(http.logger) as cap:
        fn = app.services[svc].functions["HealthFunction"]
        handler = inv.load_handler(fn)
        handler(ev, inv.context_for(fn))
        http.logger.info("inside the request")  # state persists until the next invocation
    assert cap.lines and all(line.get("correlation_id") == ev["requestContext"]["requestId"] for line in cap.lines)
    assert all(line.get("function_request_id") for line in cap.lines)


@pytest.mark.parametrize("svc,lid", [(s, lid) for s, ids in WORKERS.items() for lid in ids])
def test_every_non_http_entry_point_uses_the_shared_wrapper(app, svc, lid):
    fn = app.services[svc].functions[lid]
    handler = inv.load_handler(fn)
    assert getattr(handler, "__lambdakit_entry__", False), f"{svc}.{lid} is not wrapped by worker_entry"


def test_sqs_worker_logs_message_ids_and_flushes_metrics(app, monkeypatch):
    from lambdakit import observability

    http = importlib.import_module("internships.http")
    flushed = []
    real = observability.flush_metrics
    monkeypatch.setattr(observability, "flush_metrics", lambda: (flushed.append(1), real()))
    ev = load("sqs-batch.json")
    for r in ev["Records"]:
        r["body"] = "not json"  # the email worker drops malformed messages (logs a warning)
    with LogCapture(http.logger) as cap:
        app.internships.invoke_function("EmailWorkerFunction", ev)
    ids = [r["messageId"] for r in ev["Records"]]
    assert cap.lines and all(line.get("message_ids") == ids for line in cap.lines)
    assert any(line["message"] == "invocation" for line in cap.lines)
    assert flushed


def test_schedule_logs_the_event_id(app):
    http = importlib.import_module("campaigns.http")
    ev = load("schedule.json")
    with LogCapture(http.logger) as cap:
        app.campaigns.invoke_function("DispatcherFunction", ev)
    assert cap.lines and all(line.get("correlation_id") == ev["id"] for line in cap.lines)


def test_one_message_batch_uses_the_message_id_as_correlation_id():
    from lambdakit.observability import event_ids

    ev = load("sqs-batch.json")
    ev["Records"] = ev["Records"][:1]
    assert event_ids(ev)["correlation_id"] == ev["Records"][0]["messageId"]
    assert event_ids({}) == {}


def test_worker_entry_is_idempotent_and_passes_http_events_through():
    from lambdakit.observability import get_logger, worker_entry

    logger = get_logger("t")
    calls = []

    def handler(event, context):
        calls.append(event)
        return "done"

    once = worker_entry(logger)(handler)
    assert worker_entry(logger)(once) is once
    http_ev = load("http-campaigns-health.json")
    assert once(http_ev, None) == "done" and calls[-1] is http_ev


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("PYTHON", "POWERTOOLS_TRACE", "LAMBDA_TASK_ROOT", "AWS_SAM_LOCAL"))}
    base.update({"PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "shared"), str(ROOT / "functions" / "exams")]),
                 "AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x",
                 **env})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=base, cwd=ROOT,
                          timeout=60)


PROBE = """
import sys
import exams.health.handler
print("xray_at_import", "aws_xray_sdk" in sys.modules)
from lambdakit import aws, observability
print("tracer", observability.tracer() is not None)
aws.client("dynamodb")
patcher = sys.modules.get("aws_xray_sdk.core.patcher")
print("patched", bool(patcher and "botocore" in patcher._PATCHED_MODULES))
"""


def test_tracer_is_off_locally_and_imports_nothing():
    r = _run(PROBE, POWERTOOLS_TRACE_DISABLED="true", LAMBDA_TASK_ROOT="/var/task")
    assert r.returncode == 0, r.stderr
    assert "xray_at_import False" in r.stdout and "tracer False" in r.stdout and "patched False" in r.stdout
    r = _run(PROBE)  # not in Lambda at all
    assert r.returncode == 0, r.stderr
    assert "tracer False" in r.stdout and "patched False" in r.stdout


def test_tracer_patches_botocore_lazily_in_lambda():
    r = _run(PROBE, LAMBDA_TASK_ROOT="/var/task", AWS_LAMBDA_FUNCTION_NAME="exams-HealthFunction",
             AWS_XRAY_CONTEXT_MISSING="IGNORE_ERROR", AWS_XRAY_DAEMON_ADDRESS="127.0.0.1:9")
    assert r.returncode == 0, r.stderr
    # aws_xray_sdk is not imported by the handler module: only when the first client is made
    assert "xray_at_import False" in r.stdout and "tracer True" in r.stdout and "patched True" in r.stdout


BYTECODE_PROBE = """
from lambdakit import observability
logger = observability.get_logger("t")
print("first", observability.check_bytecode(logger), "second", observability.check_bytecode(logger))
observability.flush_metrics()
"""


@pytest.mark.parametrize("shipped", [True, False], ids=["with-bytecode", "without-bytecode"])
def test_a_lambda_deployed_without_bytecode_says_so_once(shipped, tmp_path):
    """Issue #21: a plain `sam build` ships no .pyc and Lambda cannot write them; the first
    invocation warns and counts ColdStartWithoutBytecode (with `make build` it stays quiet)."""
    env = {"LAMBDA_TASK_ROOT": str(tmp_path), "POWERTOOLS_TRACE_DISABLED": "true",
           "POWERTOOLS_METRICS_NAMESPACE": "Test"}
    code = BYTECODE_PROBE
    if not shipped:  # no bytecode written, none read: an empty cache prefix (as in a read-only /opt)
        code = f"import sys; sys.dont_write_bytecode = True; sys.pycache_prefix = {str(tmp_path / 'none')!r}\n" + code
    _run("import lambdakit.observability", **env)  # with bytecode: written by a first import
    r = _run(code, **env)
    assert r.returncode == 0, r.stderr
    if shipped:
        assert "first True second True" in r.stdout and "without bytecode" not in r.stdout
    else:
        assert "first False second True" in r.stdout
        assert r.stdout.count("deployed without bytecode") == 1 and "ColdStartWithoutBytecode" in r.stdout
