"""Cron routes and schedule events; admin email queue routes."""
from __future__ import annotations

import datetime as dt

import pytest

from .conftest import drain_queue, sandbox_messages, seed_enrollment, seed_milestone

CRON = {"Authorization": "Bearer cron-test-secret"}


@pytest.mark.parametrize("job", ["process-emails", "inactive-students", "deadline-reminders", "job-alerts"])
def test_cron_routes_need_the_secret(eng, job):
    c = eng.internships
    assert c.get(f"/api/cron/{job}").status == 401
    assert c.get(f"/api/cron/{job}", headers={"Authorization": "Bearer wrong"}).status == 401
    assert c.get(f"/api/cron/{job}", headers={"Authorization": "cron-test-secret"}).status == 401
    r = c.get(f"/api/cron/{job}", headers=CRON)
    assert r.status == 200 and r.json()["ok"] is True
    assert isinstance(r.json()["sent"], int) and isinstance(r.json()["skipped"], int)


def test_cron_secret_from_secrets_manager(eng, monkeypatch):
    import os

    import boto3

    from lambdakit import settings as ks

    monkeypatch.delenv("INTERNSHIPS_CRON_SECRET")
    ks.reset_settings()
    value = boto3.client("secretsmanager", region_name="us-east-1").get_secret_value(
        SecretId=os.environ["INTERNSHIPS_CRON_SECRET_ARN"])["SecretString"]
    c = eng.internships
    assert c.get("/api/cron/process-emails", headers=CRON).status == 401
    assert c.get("/api/cron/process-emails", headers={"Authorization": f"Bearer {value}"}).status == 200


def test_deadline_reminders_idempotent_per_day_and_schedule_event(eng, intern_users):
    from lambdakit import clock

    c = eng.internships
    soon, later, done = intern_users.student(), intern_users.student(), intern_users.student()
    start = clock.iso(clock.now() - dt.timedelta(days=28))
    seed_enrollment(soon, activated_at=start, duration=1)          # ends in 2 days
    seed_enrollment(later, activated_at=clock.now_iso(), duration=1)  # ends in 30 days
    seed_enrollment(done, activated_at=start, status="completed")
    r = c.get("/api/cron/deadline-reminders", headers=CRON)
    assert r.json() == {"ok": True, "sent": 1, "skipped": 0}
    r = c.get("/api/cron/deadline-reminders", headers=CRON)
    assert r.json() == {"ok": True, "sent": 0, "skipped": 1}
    # the EventBridge schedule runs the same code
    out = c.invoke_function("CronFunction", {"job": "deadline-reminders"})
    assert out == {"ok": True, "sent": 0, "skipped": 1}
    assert c.invoke_function("CronFunction", {"job": "nope"})["ok"] is False
    out = c.invoke_function("CronFunction", {"job": "process-emails"})
    assert out["sent"] == 1
    assert [m["to"] for m in sandbox_messages()] == [soon.email]
    assert "deadline" in sandbox_messages()[0]["subject"].lower()
    assert c.get("/api/cron/process-emails", headers=CRON).json()["sent"] == 0
    # the next day it reminds again (one per day)
    clock.set_offset(86400)
    assert c.invoke_function("CronFunction", {"job": "deadline-reminders"})["sent"] == 1


def test_inactive_students(eng, intern_users):
    from lambdakit import clock

    c = eng.internships
    idle, busy = intern_users.student(), intern_users.student()
    old = clock.iso(clock.now() - dt.timedelta(days=20))
    seed_enrollment(idle, activated_at=old, duration=3)
    e = seed_enrollment(busy, activated_at=old, duration=3)
    seed_milestone(e, 1, status="submitted", submitted_at=clock.iso(clock.now() - dt.timedelta(days=2)))
    assert c.get("/api/cron/inactive-students", headers=CRON).json() == {"ok": True, "sent": 1, "skipped": 0}
    assert c.get("/api/cron/inactive-students", headers=CRON).json() == {"ok": True, "sent": 0, "skipped": 1}
    drain_queue(c)
    assert [m["to"] for m in sandbox_messages()] == [idle.email]


def test_admin_email_queue_filters_retry_cancel_stats_and_test_email(eng, intern_users, monkeypatch):
    from internships.mail import outbox, repository
    from lambdakit import clock

    c = eng.internships
    admin = intern_users.staff("admin")
    w1 = outbox.enqueue("welcome", "a@example.com", {})
    w2 = outbox.enqueue("welcome", "b@example.com", {})
    j1 = outbox.enqueue("job_alert", "c@example.com", {"jobs": []})
    q = c.get("/api/admin/email-queue", headers=admin.headers).json()
    assert q["total"] == 3 and q["pages"] == 1 and [e["id"] for e in q["emails"]] == [j1, w2, w1]
    q = c.get("/api/admin/email-queue", headers=admin.headers, query={"templateType": "welcome", "limit": 1,
                                                                        "page": 2}).json()
    assert q["total"] == 2 and q["pages"] == 2 and [e["id"] for e in q["emails"]] == [w1]
    assert c.get("/api/admin/email-queue", headers=admin.headers, query={"status": "bogus"}).status == 400
    assert c.get("/api/admin/email-queue", headers=admin.headers, query={"limit": 500}).status == 400
    # cancel pending; retry needs failed
    r = c.post("/api/admin/email-queue/cancel", json={"emailId": w1}, headers=admin.headers)
    assert r.status == 200 and r.json()["email"]["status"] == "cancelled"
    assert c.post("/api/admin/email-queue/cancel", json={"emailId": w1}, headers=admin.headers).status == 409
    assert c.post("/api/admin/email-queue/retry", json={"emailId": w2}, headers=admin.headers).status == 409
    assert c.post("/api/admin/email-queue/retry", json={}, headers=admin.headers).status == 400
    assert c.post("/api/admin/email-queue/retry", json={"emailId": "01NOPE"}, headers=admin.headers).status == 404
    q = c.get("/api/admin/email-queue", headers=admin.headers,
              query={"status": "pending", "templateType": "welcome"}).json()
    assert q["total"] == 1 and [e["id"] for e in q["emails"]] == [w2]
    today = clock.today()
    q = c.get("/api/admin/email-queue", headers=admin.headers, query={"startDate": today, "endDate": today}).json()
    assert q["total"] == 3
    q = c.get("/api/admin/email-queue", headers=admin.headers, query={"endDate": "2000-01-01"}).json()
    assert q["total"] == 0 and q["emails"] == []
    # make one fail permanently, then retry it
    repository.transition(repository.get_email(j1), "failed")
    r = c.post("/api/admin/email-queue/retry", json={"emailId": j1}, headers=admin.headers)
    assert r.status == 200 and r.json()["email"]["status"] == "pending"
    drain_queue(c)
    st = c.get("/api/admin/email-stats", headers=admin.headers).json()
    assert st["sent"] == 2 and st["cancelled"] == 1 and st["total"] == 3 and st["failed"] == 0
    assert st["byTemplate"]["welcome"]["sent"] == 1 and st["last7Days"][-1]["queued"] == 3


def test_test_email_for_all_twelve_kinds(eng, intern_users):
    from internships.mail.templates import PUBLIC_KINDS

    c = eng.internships
    admin = intern_users.staff("super_admin")
    assert len(PUBLIC_KINDS) == 12
    for kind in PUBLIC_KINDS:
        r = c.post("/api/admin/test-email", json={"template": kind}, headers=admin.headers)
        assert r.status == 200 and r.json()["to"] == admin.email, r.text
    assert c.post("/api/admin/test-email", json={"template": "spam"}, headers=admin.headers).status == 400
    r = c.post("/api/admin/test-email", json={"template": "welcome", "to": "x@example.org"}, headers=admin.headers)
    assert r.json()["to"] == "x@example.org"
    drain_queue(c, max_rounds=10)
    msgs = sandbox_messages()
    assert len(msgs) == 13 and all(m["subject"] and "<html>" in m["html"] for m in msgs)
