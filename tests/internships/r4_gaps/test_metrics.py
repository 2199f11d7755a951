"""Issue #18: internship business metrics, each counted once where its fact becomes true, and flushed
by the non-HTTP entry points (email worker, scheduled cron)."""
from __future__ import annotations

import json
from collections import Counter

import boto3

from tests.internships.engage.conftest import drain_queue
from tests.internships.journey.helpers import make_domain, sign
from tests.internships.journey.test_routes import _webhook


def _n(metrics) -> Counter:
    return Counter(name for name, _value, _dims in metrics for _ in range(int(_value)))


def test_enrollment_and_payment_metrics(gaps, intern_users, intern_seed, metrics):
    c = gaps.internships
    admin = intern_users.staff("admin")
    d = make_domain(c, admin)
    s = intern_users.student()
    metrics.clear()
    e = c.post("/api/enrollments/create", headers=s.headers, json={"domainId": d["id"], "duration": 1}
               ).json()["enrollment"]
    assert _n(metrics)["EnrollmentsCreated"] == 1 and _n(metrics)["EnrollmentsActivated"] == 0
    key = intern_seed["payments"]["key_secret"]
    order = e["order"]["orderId"]
    bad = {"enrollmentId": e["id"], "orderId": order, "paymentId": "pay_1", "signature": "0" * 64}
    assert c.post("/api/enrollments/verify-payment", headers=s.headers, json=bad).status == 400
    assert c.post("/api/enrollments/verify-payment", headers=s.headers,
                  json={**bad, "orderId": "order_other"}).status == 400
    assert _n(metrics)["PaymentsRefused"] == 2
    good = {**bad, "signature": sign(key, order, "pay_1")}
    for _ in range(2):  # the browser retries: activated once, the second is a duplicate
        assert c.post("/api/enrollments/verify-payment", headers=s.headers, json=good).status == 200
    n = _n(metrics)
    assert (n["EnrollmentsActivated"], n["PaymentsVerified"], n["PaymentsDuplicated"]) == (1, 1, 1)
    # the gateway's webhook for the same payment, delivered twice: both duplicates
    body = {"event": "payment.captured", "payload": {"payment": {"entity": {
        "id": "pay_1", "order_id": order, "amount": e["order"]["amount"]}}}}
    secret = intern_seed["payments"]["webhook_secret"]
    assert _webhook(c, secret, body, "evt_m1").status == 200
    assert _webhook(c, secret, body, "evt_m1").json()["duplicate"] is True
    assert _webhook(c, secret, body, "evt_m2", sig="0" * 64).status == 400
    n = _n(metrics)
    assert (n["EnrollmentsActivated"], n["PaymentsVerified"], n["PaymentsDuplicated"], n["PaymentsRefused"]) \
        == (1, 1, 3, 3)
    assert n["EnrollmentsCreated"] == 1
    # the activation queued its confirmation email once
    assert n["EmailsQueued"] >= 1


def test_free_enrollment_is_created_and_activated_without_payment_metrics(gaps, intern_users, metrics):
    c = gaps.internships
    admin = intern_users.staff("admin")
    d = make_domain(c, admin)
    r = c.post("/api/admin/coupons", headers=admin.headers, json={
        "code": "FREEM", "discount_type": "percent", "discount_value": 100, "max_uses": 10, "expires_at": None,
        "domain_ids": [], "is_active": True})
    assert r.status == 201, r.text
    s = intern_users.student()
    metrics.clear()
    r = c.post("/api/enrollments/create", headers=s.headers, json={"domainId": d["id"], "duration": 1,
                                                                   "couponCode": "FREEM"})
    assert r.status == 200 and r.json()["enrollment"]["status"] == "active"
    n = _n(metrics)
    assert (n["EnrollmentsCreated"], n["EnrollmentsActivated"]) == (1, 1)
    assert n["PaymentsVerified"] == n["PaymentsDuplicated"] == n["PaymentsRefused"] == 0


def test_email_metrics_queued_sent_retried_failed(gaps, monkeypatch, metrics):
    from internships.mail import outbox, service
    from lambdakit import clock
    from lambdakit import settings as ks

    eid = outbox.enqueue("welcome", "a@example.com", {}, dedupe_key="m-1")
    outbox.enqueue("welcome", "a@example.com", {}, dedupe_key="m-1")  # dedupe hit: not queued again
    assert _n(metrics)["EmailsQueued"] == 1
    assert service.process_email(eid) == "sent" and service.process_email(eid) == "skipped"
    assert _n(metrics)["EmailsSent"] == 1

    monkeypatch.setenv("INTERNSHIPS_EMAIL_PROVIDER", "ses")
    monkeypatch.setenv("INTERNSHIPS_EMAIL_MAX_ATTEMPTS", "2")
    monkeypatch.setenv("INTERNSHIPS_SENDER_EMAIL", "no-reply@unverified-sender.test")
    ks.reset_settings()
    bad = outbox.enqueue("welcome", "b@example.com", {})
    assert service.process_email(bad) == "retry"
    assert _n(metrics)["EmailsRetried"] == 1 and _n(metrics)["EmailsFailed"] == 0
    clock.set_offset(3600)
    assert service.process_email(bad) == "failed"
    assert _n(metrics)["EmailsFailed"] == 1
    service.retry(bad)  # an admin retry
    assert _n(metrics)["EmailsRetried"] == 2
    assert _n(metrics)["EmailsSent"] == 1


def test_certificate_issued_once(gaps, intern_users, intern_seed, metrics):
    from tests.internships.journey.helpers import enroll_and_pay

    c = gaps.internships
    admin = intern_users.staff("admin")
    d = make_domain(c, admin)
    e = enroll_and_pay(c, intern_users.student(name="अनन्या शर्मा"), d, intern_seed)
    metrics.clear()
    for _ in range(2):  # idempotent: the second approval returns the same certificate
        r = c.post(f"/api/admin/enrollments/{e['id']}/approve", headers=admin.headers, json={"force": True})
        assert r.status == 200, r.text
    assert _n(metrics)["CertificatesIssued"] == 1


def _emf(out: str) -> list[str]:
    names = []
    for line in out.splitlines():
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict) and "_aws" in doc:
            names += [m["Name"] for d in doc["_aws"]["CloudWatchMetrics"] for m in d["Metrics"]]
    return names


def test_email_worker_flushes_its_metrics(gaps, capsys):
    from internships.mail import outbox

    boto3.client("sqs", region_name="us-east-1")
    outbox.enqueue("welcome", "flush@example.com", {})
    capsys.readouterr()
    drain_queue(gaps.internships)
    assert "EmailsSent" in _emf(capsys.readouterr().out)


def test_scheduled_cron_flushes_its_metrics(gaps, capsys):
    from internships.mail import outbox

    outbox.enqueue("welcome", "cron@example.com", {})
    capsys.readouterr()
    out = gaps.internships.invoke_function("CronFunction", {"job": "process-emails"})
    assert out["sent"] >= 1
    assert "EmailsSent" in _emf(capsys.readouterr().out)
