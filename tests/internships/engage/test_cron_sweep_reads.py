"""Issue #21 (cold first request): what a ``process-emails`` run reads.

The run reads the email counters (``EMAILSTATS/TOTAL``, moved in the transaction of every status
change) and the announcements' fan-out marker (``lambdakit.occupancy``) in one consistent
BatchGetItem, and queries the pending and sending emails only when the counters count some, and
the live announcements only when the marker is set. The nets: one run in three (the first ten
minutes of each half hour) queries the announcements anyway, the first run of the UTC day the
emails, each reporting work its marker or the counters missed. A listed
email is claimed on the index's copy (no first read) and read back after the claim with its
template and the site settings (one BatchGetItem). Through the real route and the schedule event,
with the calls counted."""
from __future__ import annotations

import datetime as dt

import pytest

from bench.callcount import count_calls

from .conftest import drain_queue, sandbox_messages

CRON = {"Authorization": "Bearer cron-test-secret"}


def purge_queue() -> None:
    """The queue's messages lost (received and deleted: PurgeQueue is once a minute per queue)."""
    import os

    import boto3

    sqs = boto3.client("sqs", region_name="us-east-1")
    url = os.environ["INTERNSHIPS_EMAIL_QUEUE_URL"]
    while msgs := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        for m in msgs:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])


def _ddb(cc) -> dict[str, int]:
    return {k: v for k, v in cc.calls.items() if k.startswith("dynamodb.")}


def _at_minute(minute: int, after: float = 0.0, period: int = 30) -> None:
    """The service clock moved on to ``minute`` of a half hour (``period`` minutes), the first such
    minute at least ``after`` seconds from now (the announcements' net in minutes 0-9 of a half
    hour; the emails' in minutes 0-9 of the UTC day, ``period=1440``). Never 00:00-00:09 UTC
    unless asked for."""
    import time

    from lambdakit import clock

    now = clock.now_ts() + after
    m = int(now // 60)
    target = m - m % period + minute
    while target * 60 + 5 <= now or (period != 1440 and target % 1440 < 10):
        target += period
    clock.set_offset(target * 60 + 5 - time.time())


def _run(c) -> dict:
    r = c.get("/api/cron/process-emails", headers=CRON)
    assert r.status == 200, r.text
    return r.json()


@pytest.fixture
def mark_warnings(monkeypatch):
    """Work found on a partition without its counter or marker (``occupancy.missed``), as (marker, n)."""
    from lambdakit import occupancy

    seen: list[tuple[tuple[str, str], int]] = []
    real = occupancy.missed

    def spy(key, n):
        if n:
            seen.append((key, n))
        return real(key, n)

    monkeypatch.setattr(occupancy, "missed", spy)
    return seen


def test_an_idle_run_reads_one_batch(eng):
    from internships.cron import jobs

    c = eng.internships
    _at_minute(15)
    assert not jobs.full_sweep_due()
    with count_calls() as cc:
        assert _run(c) == {"ok": True, "sent": 0, "skipped": 0, "failed": 0, "retried": 0}
    # the counters and the marker, then the run's record
    assert _ddb(cc) == {"dynamodb.BatchGetItem": 1, "dynamodb.UpdateItem": 1}
    # the schedule event runs the same code
    with count_calls() as cc:
        assert eng.internships.invoke_function("CronFunction", {"job": "process-emails"})["sent"] == 0
    assert _ddb(cc) == {"dynamodb.BatchGetItem": 1, "dynamodb.UpdateItem": 1}


def test_the_nets_query_what_the_marker_or_the_counters_say_is_empty(eng):
    from internships.cron import jobs

    c = eng.internships
    _at_minute(3)
    assert jobs.full_sweep_due() and not jobs.counters_check_due()
    with count_calls() as cc:
        assert _run(c)["sent"] == 0
    assert _ddb(cc) == {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 1, "dynamodb.UpdateItem": 1}  # announcements
    _at_minute(3, period=1440)  # 00:03 UTC: the first run of the day also queries the emails
    assert jobs.full_sweep_due() and jobs.counters_check_due()
    with count_calls() as cc:
        assert _run(c)["sent"] == 0
    assert _ddb(cc) == {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 3, "dynamodb.UpdateItem": 1}


def test_a_pending_email_is_queried_claimed_on_its_listed_copy_and_sent_once(eng):
    from internships.mail import outbox, repository

    c = eng.internships
    eid = outbox.enqueue("welcome", "ann@example.com", {"name": "Ann"})
    purge_queue()  # the worker's message lost: the sweep sends it
    _at_minute(15)
    with count_calls() as cc:
        assert _run(c)["sent"] == 1
    # counters+marker, the pending partition (not the sending one, nor the announcements), the claim,
    # the claimed email with its template and the site, the sandbox record with the message's bytes
    # (one BatchWriteItem, issue 30), the delivery, the sent transition, the run's record
    assert _ddb(cc) == {"dynamodb.BatchGetItem": 2, "dynamodb.Query": 1, "dynamodb.TransactWriteItems": 2,
                        "dynamodb.BatchWriteItem": 1, "dynamodb.UpdateItem": 2}
    assert repository.get_email(eid)["status"] == "sent"
    assert [m["to"] for m in sandbox_messages()] == ["ann@example.com"]
    assert "Welcome" in sandbox_messages()[0]["subject"]
    assert _run(c)["sent"] == 0 and len(sandbox_messages()) == 1


def test_an_expired_lease_is_reclaimed_when_the_counters_count_a_sending_email(eng):
    from internships.mail import outbox, repository, service

    c = eng.internships
    _at_minute(15)
    eid = outbox.enqueue("welcome", "bo@example.com", {})
    purge_queue()
    assert service._claim(repository.get_email(eid))  # a worker claimed it and died
    with count_calls() as cc:
        assert _run(c)["skipped"] == 0  # the lease holds: nothing claimed
    assert _ddb(cc)["dynamodb.Query"] == 1  # the sending partition only
    _at_minute(15, after=service.LEASE_SECONDS)
    assert _run(c)["sent"] == 1
    assert repository.get_email(eid)["status"] == "sent" and len(sandbox_messages()) == 1


def test_a_stale_listed_copy_is_read_back_before_it_is_given_up(eng):
    """The index still lists the email as an expired claim; the item is pending and due again: the
    claim on the copy fails, the email is read and claimed as it is, as without the copy."""
    from internships.mail import outbox, repository, service
    from lambdakit import clock

    eid = outbox.enqueue("welcome", "cy@example.com", {})
    purge_queue()
    listed = {**repository.get_email(eid), "status": "sending", "lease_until": clock.iso(clock.now() - dt.timedelta(seconds=5))}
    with count_calls() as cc:
        assert service.process_email(eid, listed) == "sent"
    assert cc.calls["dynamodb.GetItem"] == 1 and cc.calls["dynamodb.TransactWriteItems"] == 3
    assert repository.get_email(eid)["status"] == "sent" and len(sandbox_messages()) == 1
    # a copy of an email sent meanwhile: nothing is sent again
    assert service.process_email(eid, listed) == "skipped" and len(sandbox_messages()) == 1


def test_a_failed_joint_read_reads_as_before(eng, monkeypatch):
    """The claimed email's joint read (email, template, site) failing: the email is read alone and
    the template read where it was (its failure retried with backoff), so nothing changes."""
    from internships.mail import outbox, repository, service

    eid = outbox.enqueue("welcome", "di@example.com", {})
    purge_queue()

    def down(*a, **kw):
        raise RuntimeError("dynamodb unavailable")

    monkeypatch.setattr(repository, "email_with_template", down)
    assert service.process_email(eid) == "sent"
    assert repository.get_email(eid)["status"] == "sent" and len(sandbox_messages()) == 1


def test_counters_that_miss_an_email_are_caught_and_reported_by_the_daily_run(eng, mark_warnings):
    from internships.mail import outbox, repository
    from internships.store import table

    c = eng.internships
    eid = outbox.enqueue("welcome", "ed@example.com", {})
    purge_queue()
    table().update(*repository.STATS_TOTAL, set={"c_pending_welcome": 0})  # drifted (never happens)
    _at_minute(15)
    assert _run(c)["sent"] == 0 and repository.get_email(eid)["status"] == "pending"
    _at_minute(4)  # the announcements' net does not query the emails
    assert _run(c)["sent"] == 0 and repository.get_email(eid)["status"] == "pending"
    assert mark_warnings == []
    _at_minute(4, period=1440)
    assert _run(c)["sent"] == 1 and repository.get_email(eid)["status"] == "sent"
    assert mark_warnings == [(("EMAILSTATS", "TOTAL#pending"), 1)]


def test_an_unreadable_batch_queries_everything(eng, monkeypatch):
    from internships.cron import repository as cron_repo
    from internships.mail import outbox

    c = eng.internships
    outbox.enqueue("welcome", "fa@example.com", {})
    purge_queue()

    def down(keys):
        raise RuntimeError("dynamodb unavailable")

    monkeypatch.setattr(cron_repo, "read_consistent", down)
    _at_minute(15)
    with count_calls() as cc:
        assert _run(c)["sent"] == 1
    assert _ddb(cc)["dynamodb.Query"] == 3


# ---------------------------------------------------------------- announcement fan-outs
def _ann(c, admin, **kw) -> dict:
    body = {"title": "Hello", "content": "Welcome all", **kw}
    r = c.post("/api/admin/announcements", json=body, headers=admin.headers)
    assert r.status == 201, r.text
    return r.json()["announcement"]


def _fmt(t: dt.datetime) -> str:
    return t.replace(tzinfo=None, microsecond=0).isoformat()


def test_a_scheduled_fan_out_keeps_its_marker_until_it_is_done(eng, intern_users):
    from internships.announcements import repository as ann_repo
    from internships.store import table
    from lambdakit import clock

    c = eng.internships
    _at_minute(15)
    admin = intern_users.staff("admin")
    student = intern_users.student()
    # an announcement without e-mail marks nothing: the run does not query the announcements
    _ann(c, admin, title="Quiet")
    assert table().get(*ann_repo.FANOUT_MARK) is None
    with count_calls() as cc:
        _run(c)
    assert "dynamodb.Query" not in cc.calls
    # one with e-mail, scheduled in 100 minutes: marked; every run queries the announcements
    _ann(c, admin, title="Later", send_email=True, status="scheduled", target_audience="students",
         scheduled_for=_fmt(clock.now() + dt.timedelta(minutes=100)))
    assert table().get(*ann_repo.FANOUT_MARK, consistent=True)
    drain_queue(c)
    with count_calls() as cc:
        _run(c)
    assert cc.calls["dynamodb.Query"] == 1 and sandbox_messages() == []
    # an hour on (a clearable marker): still waiting, so still marked
    _at_minute(15, after=55 * 60)
    _run(c)
    assert table().get(*ann_repo.FANOUT_MARK, consistent=True) and sandbox_messages() == []
    # due: the run fans it out and sends its e-mail (swept in the same run, as before: the counters
    # it read do not count it); the next run finds nothing waiting and clears the marker
    _at_minute(15, after=55 * 60)
    assert _run(c)["sent"] == 1
    drain_queue(c)
    assert [m["to"] for m in sandbox_messages()] == [student.email]
    assert table().get(*ann_repo.FANOUT_MARK, consistent=True)
    _run(c)
    assert table().get(*ann_repo.FANOUT_MARK, consistent=True) is None
    with count_calls() as cc:
        _run(c)
    assert "dynamodb.Query" not in cc.calls
    n = len(sandbox_messages())
    drain_queue(c)
    assert len(sandbox_messages()) == n  # fanned out once


def test_a_fan_out_without_its_marker_is_found_by_the_full_run(eng, intern_users, mark_warnings):
    from internships.announcements import repository as ann_repo
    from internships.store import table

    c = eng.internships
    _at_minute(15)
    admin = intern_users.staff("admin")
    student = intern_users.student()
    a = _ann(c, admin, title="Lost", send_email=True, target_audience="students")
    purge_queue()  # the fan-out request lost
    table().delete(*ann_repo.FANOUT_MARK)  # and its marker (an index lag beyond the bound)
    _run(c)
    drain_queue(c)
    assert sandbox_messages() == []
    _at_minute(5)
    _run(c)
    drain_queue(c)
    assert [m["to"] for m in sandbox_messages()] == [student.email]
    assert mark_warnings == [(ann_repo.FANOUT_MARK, 1)]
    got = ann_repo.get(a["id"])
    assert got["email_queued_at"] and got["email_recipients"] == 1


def test_the_cron_secret_is_read_on_a_thread_while_the_client_is_created(eng, monkeypatch):
    """A cold Lambda process: the route's secret read starts on a thread (``secrets_store.prefetch``)
    and is read once; the answer is today's, with and without a valid secret."""
    import threading

    from internships.auth import secrets_store
    from lambdakit import deferred, secrets
    from lambdakit import settings as ks

    monkeypatch.delenv("INTERNSHIPS_CRON_SECRET")
    ks.reset_settings()
    monkeypatch.setattr(deferred, "active", lambda: True)
    monkeypatch.setattr(secrets_store, "_started", set())
    monkeypatch.setattr(secrets_store, "_pending", {})
    secrets_store.forget()
    seen: list[str] = []
    real = secrets.secret_string

    def spy(arn, *a, **kw):
        seen.append(threading.current_thread().name)
        return real(arn, *a, **kw)

    monkeypatch.setattr(secrets, "secret_string", spy)
    c = eng.internships
    with count_calls() as cc:
        r = c.get("/api/cron/process-emails", headers=CRON)
    assert (r.status, r.json()) == (401, {"error": "Unauthorized"})
    assert seen == ["secret-prefetch", threading.current_thread().name]
    assert cc.calls["secretsmanager.GetSecretValue"] == 1
    import os

    import boto3

    value = boto3.client("secretsmanager", region_name="us-east-1").get_secret_value(
        SecretId=os.environ["INTERNSHIPS_CRON_SECRET_ARN"])["SecretString"]
    with count_calls() as cc:
        r = c.get("/api/cron/process-emails", headers={"Authorization": f"Bearer {value}"})
    assert r.status == 200 and r.json()["ok"] is True
    assert "secretsmanager.GetSecretValue" not in cc.calls and seen[2:] == [threading.current_thread().name]
    secrets_store.forget()
