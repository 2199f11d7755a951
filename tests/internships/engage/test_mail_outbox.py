"""The email queue: outbox idempotency, worker, retries with backoff, admin state changes."""
from __future__ import annotations

import boto3
import pytest

from .conftest import drain_queue, sandbox_messages


def test_enqueue_is_idempotent_on_dedupe_key_and_worker_sends_once(eng):
    from internships.mail import outbox, repository

    a = outbox.enqueue("welcome", "ann@example.com", {"name": "Ann"}, dedupe_key="welcome:ann@example.com")
    b = outbox.enqueue("welcome", "ann@example.com", {"name": "Ann"}, dedupe_key="welcome:ann@example.com")
    assert a == b and a
    assert repository.get_email(a)["status"] == "pending"
    drain_queue(eng.internships)
    msgs = sandbox_messages()
    assert [m["to"] for m in msgs] == ["ann@example.com"]
    assert msgs[0]["email_id"] == a and "Welcome" in msgs[0]["subject"]
    assert f"/api/email/track?id={a}" in msgs[0]["html"]
    assert repository.get_email(a)["status"] == "sent"
    # a redelivered message does not send again
    repository.send_work(a)
    drain_queue(eng.internships)
    assert len(sandbox_messages()) == 1


def test_enqueue_rejects_unknown_template_and_bad_address(eng):
    from internships.mail import outbox
    from lambdakit.errors import BadRequest

    with pytest.raises(BadRequest):
        outbox.enqueue("nope", "a@example.com", {})
    with pytest.raises(BadRequest):
        outbox.enqueue("welcome", "a@example.com\r\nBcc: x@y.z", {})


def test_ses_failures_retry_with_backoff_then_fail(eng, monkeypatch):
    from internships.mail import outbox, repository, service
    from lambdakit import clock
    from lambdakit import settings as ks

    monkeypatch.setenv("INTERNSHIPS_EMAIL_PROVIDER", "ses")
    monkeypatch.setenv("INTERNSHIPS_EMAIL_MAX_ATTEMPTS", "3")
    # a sender whose domain is not a verified SES identity (the local runtime verifies example.com)
    monkeypatch.setenv("INTERNSHIPS_SENDER_EMAIL", "no-reply@unverified-sender.test")
    ks.reset_settings()
    eid = outbox.enqueue("welcome", "bob@example.com", {})
    # sender identity not verified in SES: every attempt is rejected
    drain_queue(eng.internships)
    e = repository.get_email(eid)
    assert e["status"] == "pending" and e["attempts"] == 1 and "MessageRejected" in e["last_error"]
    assert e["next_attempt_at"] > clock.now_iso()
    # not due yet: the sweep leaves it alone
    assert service.sweep()["skipped"] == 0 and repository.get_email(eid)["attempts"] == 1
    clock.set_offset(61)
    assert service.sweep()["retry"] == 1
    assert repository.get_email(eid)["attempts"] == 2
    clock.set_offset(61 + 121)
    assert service.sweep()["failed"] == 1
    e = repository.get_email(eid)
    assert e["status"] == "failed" and e["attempts"] == 3
    # now verify the sender; an admin retry makes it pending and it goes out through SES
    boto3.client("sesv2", region_name="us-east-1").create_email_identity(EmailIdentity="no-reply@unverified-sender.test")
    service.retry(eid)
    assert repository.get_email(eid)["status"] == "pending"
    assert service.sweep()["sent"] == 1
    assert repository.get_email(eid)["status"] == "sent"
    st = service.stats()
    assert st["sent"] == 1 and st["failed"] == 0 and st["pending"] == 0


def test_racing_workers_claim_once(eng):
    """Two workers holding the same snapshot: the conditional claim lets exactly one through.
    (moto is not thread-safe, so the interleaving is played step by step.)"""
    from internships.mail import outbox, repository, service

    eid = outbox.enqueue("welcome", "c@example.com", {})
    snapshot = repository.get_email(eid)
    assert service._claim(dict(snapshot)) is True
    assert service._claim(dict(snapshot)) is False
    assert repository.get_email(eid)["status"] == "sending"
    # the winner's lease is honoured; a crashed worker's lease expires and is reclaimed by the sweep
    assert service.process_email(eid) == "skipped"
    from lambdakit import clock
    clock.set_offset(200)
    assert service.sweep()["sent"] == 1
    assert len(sandbox_messages()) == 1 and service.stats()["sent"] == 1


def test_cancel_and_retry_state_rules(eng):
    from internships.mail import outbox, service
    from lambdakit.errors import Conflict, NotFound

    eid = outbox.enqueue("welcome", "d@example.com", {})
    with pytest.raises(Conflict):
        service.retry(eid)  # pending, not failed
    assert service.cancel(eid)["status"] == "cancelled"
    with pytest.raises(Conflict):
        service.cancel(eid)
    assert service.process_email(eid) == "skipped"
    assert sandbox_messages() == []
    with pytest.raises(NotFound):
        service.cancel("01UNKNOWN")
    st = service.stats()
    assert st["cancelled"] == 1 and st["pending"] == 0 and st["total"] == 1


def test_ses_throttling_is_retried_without_failing_or_sending_twice(eng, monkeypatch):
    """Issue 23 rule 4: SES throttling (and its 5xx) is retried with backoff and never uses the
    email's attempt budget: more throttles than ``email_max_attempts`` leave it pending, and once
    SES accepts it, it is sent exactly once."""
    from botocore.awsrequest import AWSResponse

    from internships.mail import outbox, repository, service
    from lambdakit import aws, clock
    from lambdakit import settings as ks

    monkeypatch.setenv("INTERNSHIPS_EMAIL_PROVIDER", "ses")
    monkeypatch.setenv("INTERNSHIPS_EMAIL_MAX_ATTEMPTS", "2")
    ks.reset_settings()
    sent: list[str] = []
    answers = iter([("TooManyRequestsException", 429), ("InternalFailure", 500), ("TooManyRequestsException", 429),
                    ("ServiceUnavailable", 503)])

    def ses_hook(model, params, **kw):
        if model.name != "SendEmail":
            return None
        nxt = next(answers, None)
        if nxt is None:
            sent.append(params.get("FromEmailAddress") or "")
            return None  # the real call (moto)
        code, status = nxt
        parsed = {"Error": {"Code": code, "Message": "slow down"},
                  "ResponseMetadata": {"HTTPStatusCode": status, "HTTPHeaders": {}, "RetryAttempts": 0}}
        return AWSResponse("https://email", status, {}, None), parsed

    ses = aws.client("sesv2")
    ses.meta.events.register("before-call.sesv2.SendEmail", ses_hook, unique_id="throttle-test")
    try:
        eid = outbox.enqueue("welcome", "tom@example.com", {})
        drain_queue(eng.internships)
        offset = 0
        for _ in range(6):
            e = repository.get_email(eid)
            if e["status"] == "sent":
                break
            assert e["status"] == "pending" and int(e["attempts"]) == 0, e  # throttles use no attempt
            offset += 3700
            clock.set_offset(offset)
            service.sweep()
        e = repository.get_email(eid)
        assert e["status"] == "sent" and int(e.get("throttles", 0)) >= 4 and int(e["attempts"]) <= 1
        assert len(sent) == 1
    finally:
        ses.meta.events.unregister("before-call.sesv2.SendEmail", unique_id="throttle-test")
        clock.set_offset(0)
