"""Issue #18 item 1 (exams): business metrics as CloudWatch EMF lines, flushed by every entry
point (HTTP functions, the attempt sweep, the analytics worker). Namespace OnlineExams."""
from __future__ import annotations

import json
from collections import Counter

from lambdakit import clock
from tests.exams.delivery.delivery_helpers import mcq


def emitted(capsys) -> tuple[Counter, dict]:
    """Sum of every metric in the EMF lines printed since the last call, and each metric's unit."""
    totals: Counter = Counter()
    units: dict = {}
    for line in capsys.readouterr().out.splitlines():
        if not line.startswith('{"_aws"'):
            continue
        doc = json.loads(line)
        for d in doc["_aws"]["CloudWatchMetrics"]:
            assert d["Namespace"] == "OnlineExams"
            for m in d["Metrics"]:
                units[m["Name"]] = m["Unit"]
                v = doc[m["Name"]]
                totals[m["Name"]] += sum(v) if isinstance(v, list) else v
    return totals, units


def test_start_submit_and_guest_metrics(tenant, capsys):
    api, st = tenant.app.exams, tenant.students[0]
    q = tenant.question(**mcq("Q"))
    t = tenant.test([q["id"]], allow_guests=True)
    capsys.readouterr()
    a = tenant.start(t)
    m, _ = emitted(capsys)
    assert m["AttemptsStarted"] == 1 and m["GuestAttempts"] == 0
    r = api.post(f"/api/attempts/{a['id']}/submit", headers=st.headers)
    assert r.status == 200
    m, units = emitted(capsys)
    assert m["AttemptsSubmitted"] == 1 and m["AttemptsAutoSubmitted"] == 0 and m["RiskAutoSubmits"] == 0
    assert "GradingDuration" in m and units["GradingDuration"] == "Milliseconds"
    assert api.post(f"/api/attempts/{a['id']}/submit", headers=st.headers).status == 409
    m, _ = emitted(capsys)
    assert m["AttemptsSubmitted"] == 0 and "GradingDuration" not in m  # once per fact
    tenant.guest(t)
    m, _ = emitted(capsys)
    assert m["AttemptsStarted"] == 1 and m["GuestAttempts"] == 1


def test_sweep_auto_submit_is_counted_and_flushed_by_the_sweep(tenant, capsys):
    t = tenant.test([tenant.question(**mcq("Q"))["id"]], timer=5)
    tenant.start(t)
    capsys.readouterr()
    try:
        clock.set_offset(5 * 60 + 61)
        out = tenant.app.exams.invoke_function("AttemptSweepFunction", {"source": "aws.events"})
    finally:
        clock.set_offset(0)
    assert out["submitted"] == 1
    m, _ = emitted(capsys)  # printed by the sweep itself, before any other request
    assert m["AttemptsSubmitted"] == 1 and m["AttemptsAutoSubmitted"] == 1 and m["RiskAutoSubmits"] == 0


def test_proctoring_events_and_risk_auto_submit(tenant, capsys):
    api, st = tenant.app.exams, tenant.students[0]
    t = tenant.test([tenant.question(**mcq("Q"))["id"]])
    a = tenant.start(t)
    capsys.readouterr()

    def event(kind):
        r = api.post("/api/proctoring/events", json={"attempt_id": a["id"], "event_type": kind}, headers=st.headers)
        assert r.status in (200, 201), r.text  # 200: a de-duplicated event
        return r.json()["data"]

    for kind in ("CAMERA_PERMISSION_DENIED", "FULLSCREEN_EXIT", "TAB_SWITCH", "WINDOW_BLUR"):  # risk 9
        event(kind)
    assert event("TAB_SWITCH")["duplicate"] is True  # de-duplicated: not a new event
    try:
        clock.set_offset(31)
        event("CAMERA_PERMISSION_DENIED")  # 14
        last = event("FULLSCREEN_EXIT")  # 16 ≥ 15
    finally:
        clock.set_offset(0)
    assert last["auto_submitted"] is True
    m, _ = emitted(capsys)
    assert m["ProctoringEvents"] == 6
    assert m["RiskAutoSubmits"] == 1 and m["AttemptsAutoSubmitted"] == 1 and m["AttemptsSubmitted"] == 1


def test_analytics_worker_flushes_metrics(tenant, monkeypatch):
    from exams.analytics import worker
    from lambdakit import observability
    from tests.exams.delivery.delivery_helpers import drain_analytics

    calls = []
    assert getattr(worker.lambda_handler, "__lambdakit_entry__", False)  # wrapped by worker_entry
    st = tenant.students[0]
    t = tenant.test([tenant.question(**mcq("Q"))["id"]])
    a = tenant.start(t)
    assert tenant.app.exams.post(f"/api/attempts/{a['id']}/submit", headers=st.headers).status == 200
    # the worker's shared wrapper (lambdakit.observability.worker_entry) flushes, once per invocation
    monkeypatch.setattr(observability, "flush_metrics", lambda: calls.append(1))
    assert drain_analytics(tenant.app) == 1
    assert calls == [1]
