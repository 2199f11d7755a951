"""The local runtime's per-request cost log (``LOCAL_COST_LOG``, ``local_runtime.costlog``): one
JSON line per invocation with the template's route key, the status and exactly the AWS calls
that request made (the same numbers as the process-wide botocore counter around the request)."""
from __future__ import annotations

import json
import threading

import pytest

from local_runtime import costlog
from local_runtime.callcount import count_calls


@pytest.fixture
def cost_log(tmp_path, monkeypatch):
    path = tmp_path / "cost.ndjson"
    monkeypatch.setenv(costlog.ENV, str(path))
    costlog.reset()
    yield lambda: [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []
    monkeypatch.delenv(costlog.ENV)
    costlog.reset()


def test_off_by_default(campaigns_app, monkeypatch, tmp_path):
    monkeypatch.delenv(costlog.ENV, raising=False)
    costlog.reset()
    assert costlog.from_env() is None
    assert campaigns_app.campaigns.get("/health").status == 200
    assert not list(tmp_path.iterdir())


def test_one_line_per_request_with_route_key_and_exact_counts(campaigns_app, admin_key, cost_log):
    c, h = campaigns_app.campaigns, {"Authorization": f"Bearer {admin_key}"}
    lid = c.post("/lists", json={"name": "cost"}, headers=h).json()["data"]["id"]
    for e in ("a@example.com", "b@example.com"):
        assert c.post("/contacts", json={"email": e, "lists": [lid]}, headers=h).status == 201
    before = len(cost_log())
    with count_calls() as cc:
        assert c.get(f"/lists/{lid}", headers=h).status == 200
    assert c.get("/lists/nope/nothing", headers=h).status == 404
    assert c.get("/health").status == 200
    got = cost_log()[before:]
    assert [(x["kind"], x["service"], x["route"], x["status"]) for x in got] == [
        ("http", "campaigns", "GET /lists/{id}", 200), ("http", "campaigns", "<unmatched>", 404),
        ("http", "campaigns", "GET /health", 200)]
    line = got[0]
    # exactly the calls the process-wide counter saw for that request, DynamoDB ones among them
    assert line["calls"] == dict(cc.calls) and line["total"] == cc.total() > 0
    assert line["ddb"] == cc.total("dynamodb") >= 1 and line["items_read"] == cc.items_read >= 1
    assert line["items_scanned"] == cc.items_scanned
    assert got[2]["total"] == 0  # the health check touches nothing
    assert all(x["ms"] >= 0 for x in got)


def test_concurrent_requests_are_counted_apart(campaigns_app, admin_key, cost_log):
    """Counting is per thread: requests running at the same time (different functions, as the
    runtime runs one invocation per function at a time) each get their own calls only."""
    c, h = campaigns_app.campaigns, {"Authorization": f"Bearer {admin_key}"}
    lid = c.post("/lists", json={"name": "cost"}, headers=h).json()["data"]["id"]
    c.post("/contacts", json={"email": "a@example.com", "lists": [lid]}, headers=h)
    paths = {"GET /lists/{id}": f"/lists/{lid}", "GET /contacts": "/contacts"}
    alone = {}
    for route, path in paths.items():
        with count_calls() as cc:
            c.get(path, headers=h)
        alone[route] = dict(cc.calls)
    assert alone["GET /lists/{id}"] != alone["GET /contacts"]
    before = len(cost_log())
    barrier = threading.Barrier(2)

    def go(path):
        barrier.wait()
        for _ in range(5):
            c.get(path, headers=h)

    threads = [threading.Thread(target=go, args=(p,)) for p in paths.values()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = cost_log()[before:]
    assert len(got) == 10 and all(x["calls"] == alone[x["route"]] for x in got)


def test_non_http_invocations_are_labelled(campaigns_app, cost_log):
    before = len(cost_log())
    campaigns_app.campaigns.invoke_function("DispatcherFunction", {
        "version": "0", "id": "1", "detail-type": "Scheduled Event", "source": "aws.events", "detail": {}})
    got = cost_log()[before:]
    assert [(x["kind"], x["route"], x["status"]) for x in got] == [("schedule", "DispatcherFunction", "ok")]
    assert got[0]["ddb"] >= 1  # the dispatcher looks for due campaigns


def test_bench_tabulates_both_sizes_flags_growth_and_checks_coverage(tmp_path):
    """``bench/bench_cost_e2e.py --tabulate``: lines before the seeding mark are dropped; a route
    whose max items read rises with the data size is flagged; a route seen at one size only
    breaks the coverage count."""
    import subprocess
    import sys
    from pathlib import Path

    def line(route, total, items, kind="http", status=200):
        return json.dumps({"kind": kind, "service": "campaigns", "route": route, "status": status,
                           "calls": {"dynamodb.Query": total}, "total": total, "ddb": total, "items_read": items,
                           "items_scanned": items, "ms": 1})

    mark = json.dumps({"kind": "mark", "label": "seeded", "service": "campaigns"})
    (tmp_path / "100-campaigns.ndjson").write_text("\n".join([
        line("GET /contacts/export", 99, 999), mark, line("GET /contacts", 3, 20), line("GET /contacts", 2, 10),
        line("GET /contacts/export", 5, 300), line("GET /lists", 2, 5), line("X", 9, 9, kind="queue")]) + "\n")
    (tmp_path / "1000-campaigns.ndjson").write_text("\n".join([
        mark, line("GET /contacts", 3, 20), line("GET /contacts/export", 5, 1200), line("GET /health", 0, 0),
        line("X", 12, 12, kind="queue")]) + "\n")
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "bench/bench_cost_e2e.py", "--sizes", "100,1000", "--suites", "campaigns",
                        "--tabulate", str(tmp_path)], cwd=root, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert res["grows"] == ["campaigns GET /contacts/export"] and res["ok"] is False
    assert (res["routes_exercised"], res["routes_tabulated"]) == (4, 2)  # /lists and /health: one size only
    rows = {(x["kind"], x["route"]): x for x in res["table"]}
    assert rows[("http", "GET /contacts")]["calls_max"] == [3, 3] and rows[("http", "GET /contacts")]["requests"] == [2, 1]
    assert rows[("http", "GET /contacts/export")]["items_read_max"] == [300, 1200]  # the pre-seed 999 is dropped
    assert rows[("queue", "X")]["grows"] is None  # batches are informational
    assert "routes exercised by e2e: 4, tabulated: 2" in r.stdout
