"""Issue 33 item 6: a route answers within its time budget; longer work answers 202 and a task on the
tasks queue (CronFunction) finishes it, visible through the status routes. The time budget is
simulated through the Lambda context the harness passes (its remaining time), not by sleeping."""
from __future__ import annotations

import datetime as dt
import json
import os

import boto3
import pytest

from .conftest import sandbox_messages, seed_enrollment
from .test_jobs import feeds  # noqa: F401 - the fixture feeds on 127.0.0.1

CRON = {"Authorization": "Bearer cron-test-secret"}


@pytest.fixture
def short_budget(monkeypatch):
    """The next ``allow(n)`` budget checks see plenty of time, every later one too little (below
    ``task_http_margin_ms``, ``task_worker_margin_ms``); ``restore()`` gives the contexts their real remaining time again."""
    from local_runtime.invoke import LambdaContext

    real = LambdaContext.get_remaining_time_in_millis
    state = {"left": 0}

    def remaining(self) -> int:
        state["left"] -= 1
        return 280_000 if state["left"] >= 0 else 1_000

    class Budget:
        def allow(self, n: int) -> None:
            state["left"] = n
            monkeypatch.setattr(LambdaContext, "get_remaining_time_in_millis", remaining)

        def restore(self) -> None:
            monkeypatch.setattr(LambdaContext, "get_remaining_time_in_millis", real)

    return Budget()


def _task_messages() -> list[dict]:
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = os.environ["INTERNSHIPS_TASKS_QUEUE_URL"]
    return sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0).get("Messages", [])


def _deliver(app, msgs: list[dict], *, delete: bool = True) -> dict:
    """What the SQS event source does: the messages to CronFunction, successful ones deleted."""
    event = {"Records": [{
        "messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
        "attributes": {"ApproximateReceiveCount": "1"}, "messageAttributes": {}, "md5OfBody": m["MD5OfBody"],
        "eventSource": "aws:sqs", "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:tasks",
        "awsRegion": "us-east-1"} for m in msgs]}
    resp = app.invoke_function("CronFunction", event)
    if delete:
        sqs = boto3.client("sqs", region_name="us-east-1")
        failed = {f["itemIdentifier"] for f in resp["batchItemFailures"]}
        for m in msgs:
            if m["MessageId"] not in failed:
                sqs.delete_message(QueueUrl=os.environ["INTERNSHIPS_TASKS_QUEUE_URL"], ReceiptHandle=m["ReceiptHandle"])
    return resp


def _ending_soon(intern_users, n: int) -> list:
    from lambdakit import clock

    start = clock.iso(clock.now() - dt.timedelta(days=28))
    users = [intern_users.student() for _ in range(n)]
    for u in users:
        seed_enrollment(u, activated_at=start, duration=1)  # ends in 2 days: due a reminder
    return users


def test_small_job_keeps_the_spec_synchronous_body(eng, intern_users):
    _ending_soon(intern_users, 2)
    r = eng.internships.get("/api/cron/deadline-reminders", headers=CRON)
    assert r.status == 200 and r.json() == {"ok": True, "sent": 2, "skipped": 0}
    assert "location" not in r.headers
    assert _task_messages() == []


def test_job_over_the_budget_answers_202_and_the_worker_finishes_it_once(eng, intern_users, short_budget):
    c = eng.internships
    users = _ending_soon(intern_users, 3)
    short_budget.allow(1)  # one enrollment fits the request's budget
    r = c.get("/api/cron/deadline-reminders", headers=CRON)
    short_budget.restore()
    assert r.status == 202, r.text
    body = r.json()
    task_id = body["taskId"]
    assert body["status"] == "running" and body["sent"] == 1 and body["skipped"] == 0
    assert r.headers["location"] == body["statusUrl"] == f"/api/cron/tasks/{task_id}"
    # the status route: cron-secret auth, running with the request's share
    assert c.get(f"/api/cron/tasks/{task_id}").status == 401
    s = c.get(f"/api/cron/tasks/{task_id}", headers=CRON).json()
    assert (s["status"], s["sent"], s["finishedAt"]) == ("running", 1, None)

    msgs = _task_messages()
    assert [json.loads(m["Body"]) for m in msgs] == [{"taskId": task_id}]
    from internships.tasks import repository as task_repo

    before_worker = task_repo.get(task_id)
    assert _deliver(c, msgs) == {"batchItemFailures": []}
    s = c.get(f"/api/cron/tasks/{task_id}", headers=CRON).json()
    assert (s["status"], s["sent"], s["skipped"], s["kind"]) == ("done", 3, 0, "deadline-reminders")
    assert s["finishedAt"] and _task_messages() == []
    record = task_repo.get(task_id)
    from lambdakit import clock

    assert clock.now_ts() + 6 * 86400 < int(record["ttl"]) <= clock.now_ts() + 7 * 86400 + 5  # TTL 7 days
    run = task_repo.table().get("CRONRUN#deadline-reminders", f"DAY#{clock.today()}")
    assert run["last_result"] == {"ok": True, "sent": 3, "skipped": 0}  # recorded like an inline run

    # a redelivery after the task finished does nothing
    _deliver(c, [{"MessageId": "again", "ReceiptHandle": "x", "Body": json.dumps({"taskId": task_id}),
                  "MD5OfBody": ""}], delete=False)
    # a redelivery of a run whose progress was never recorded (the worker died before its commit):
    # the enrollments are redone, and every reminder is a duplicate (its dedupe key), so none twice
    task_repo.table().put(before_worker)
    _deliver(c, [{"MessageId": "retry", "ReceiptHandle": "x", "Body": json.dumps({"taskId": task_id}),
                  "MD5OfBody": ""}], delete=False)
    s = c.get(f"/api/cron/tasks/{task_id}", headers=CRON).json()
    assert (s["status"], s["sent"], s["skipped"]) == ("done", 1, 2)
    c.invoke_function("CronFunction", {"job": "process-emails"})
    assert sorted(m["to"] for m in sandbox_messages()) == sorted(u.email for u in users)


def test_worker_out_of_time_hands_on_to_a_new_message(eng, intern_users, short_budget):
    c = eng.internships
    _ending_soon(intern_users, 3)
    short_budget.allow(1)
    task_id = c.get("/api/cron/deadline-reminders", headers=CRON).json()["taskId"]
    short_budget.allow(1)  # the worker too has time for one enrollment
    _deliver(c, _task_messages())
    short_budget.restore()
    s = c.get(f"/api/cron/tasks/{task_id}", headers=CRON).json()
    assert (s["status"], s["sent"]) == ("running", 2)
    msgs = _task_messages()
    assert [json.loads(m["Body"]) for m in msgs] == [{"taskId": task_id}]
    _deliver(c, msgs)
    s = c.get(f"/api/cron/tasks/{task_id}", headers=CRON).json()
    assert (s["status"], s["sent"], s["skipped"]) == ("done", 3, 0)


def test_unknown_task_is_404_in_the_error_shape(eng):
    r = eng.internships.get("/api/cron/tasks/nope", headers=CRON)
    assert r.status == 404 and r.json() == {"error": "Task not found"}


def test_admin_fetch_over_the_budget_answers_202_and_the_task_route_shows_it(eng, feeds, intern_users,  # noqa: F811
                                                                            short_budget):
    c = eng.internships
    admin, student = intern_users.staff("admin"), intern_users.student()
    short_budget.allow(1)  # one of the four sources (rss, atom, a missing feed, the search) fits
    r = c.post("/api/admin/jobs/fetch-all", headers=admin.headers)
    short_budget.restore()
    assert r.status == 202, r.text
    body = r.json()
    task_id = body["taskId"]
    assert body["success"] is True and body["sources"] == 1 and body["added"] == 2
    assert r.headers["location"] == f"/api/admin/tasks/{task_id}"
    assert c.get(f"/api/admin/tasks/{task_id}", headers=student.headers).status == 403
    assert c.get(f"/api/admin/tasks/{task_id}", headers=admin.headers).json()["status"] == "running"
    assert c.get(f"/api/cron/tasks/{task_id}", headers=CRON).status == 404  # another origin's task
    _deliver(c, _task_messages())
    s = c.get(f"/api/admin/tasks/{task_id}", headers=admin.headers).json()
    assert (s["status"], s["added"], s["updated"], s["sources"], len(s["errors"])) == ("done", 4, 1, 3, 1)
    assert c.get("/api/admin/jobs", headers=admin.headers).json()["total"] == 4


def test_one_source_fetch_is_bounded_in_total_across_redirects(eng, monkeypatch):
    """A feed's hops share ``jobs_fetch_timeout_seconds`` (8 s), so one source fits the route's margin:
    each hop gets what is left, and a chain that outlasts it stops with an error for that source."""
    from internships.jobs import fetch as fetch_mod

    ticks = iter([0.0, 5.0, 10.0, 15.0])
    monkeypatch.setattr(fetch_mod, "monotonic", lambda: next(ticks))
    timeouts = []

    class Redirect:
        status = 302
        body = b""

        def header(self, name):
            return "/next" if name == "location" else None

    def fake_fetch(url, **kw):
        timeouts.append(kw["timeout"])
        return Redirect()

    monkeypatch.setattr(fetch_mod.ssrf, "fetch", fake_fetch)
    with pytest.raises(fetch_mod.FetchError, match="timed out"):
        fetch_mod.fetch("https://feeds.example.com/rss")
    assert timeouts == [3.0]  # the first hop got the 8 s less the 5 already gone; no second hop
