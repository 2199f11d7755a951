"""Fixtures of the ENGAGE slice (announcements, notifications, jobs, forms, mail, cron)."""
from __future__ import annotations

import json
import os

import boto3
import pytest


@pytest.fixture
def eng(internships_app, monkeypatch):
    """The internship service, with a low scrypt cost and a known cron secret."""
    from lambdakit import clock, settings as ks

    monkeypatch.setenv("INTERNSHIPS_CRON_SECRET", "cron-test-secret")
    monkeypatch.setenv("INTERNSHIPS_SCRYPT_N", "1024")
    ks.reset_settings()
    clock.set_offset(0)
    yield internships_app
    clock.set_offset(0)
    ks.reset_settings()


def drain_queue(app, max_rounds: int = 5) -> list:
    """Deliver what is on the email queue to the real worker function (as the SQS event source would)."""
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = os.environ["INTERNSHIPS_EMAIL_QUEUE_URL"]
    results = []
    for _ in range(max_rounds):
        msgs = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0).get("Messages", [])
        if not msgs:
            break
        event = {"Records": [{
            "messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
            "attributes": {"ApproximateReceiveCount": "1"}, "messageAttributes": {}, "md5OfBody": m["MD5OfBody"],
            "eventSource": "aws:sqs", "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:q", "awsRegion": "us-east-1",
        } for m in msgs]}
        resp = app.invoke_function("EmailWorkerFunction", event)
        failed = {f["itemIdentifier"] for f in resp.get("batchItemFailures", [])}
        for m in msgs:
            if m["MessageId"] not in failed:
                sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
        results.append(resp)
    return results


def sandbox_messages() -> list[dict]:
    from internships.mail import repository

    return repository.sandbox_messages()


def purge_queue() -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    sqs.purge_queue(QueueUrl=os.environ["INTERNSHIPS_EMAIL_QUEUE_URL"])


def body(r):
    return json.loads(r.body or b"null")
