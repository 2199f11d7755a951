"""Fixtures of the ENGAGE slice (announcements, notifications, jobs, forms, mail, cron)."""
from __future__ import annotations

import json
import os

import boto3
import pytest


@pytest.fixture
def eng(internships_app, monkeypatch):
    """The internship service, with a low scrypt cost and a known cron secret."""
    from lambdakit import clock
    from lambdakit import settings as ks

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


def seed_enrollment(user, *, domain_id="dom-web", domain_name="Web Development", status="active",
                    activated_at=None, duration=1, created_at=None):
    """An enrollment item in JOURNEY's documented shape (docs/internships-data-model.md)."""
    from internships.settings import settings
    from lambdakit import clock, ids
    from lambdakit.ddb import Table

    eid = ids.sortable_id()
    now = created_at or clock.now_iso()
    item = {"pk": f"ENROLL#{eid}", "sk": "ENROLL", "id": eid, "user_id": user.id, "student_name": user.name,
            "student_email": user.email, "domain_id": domain_id, "domain_name": domain_name, "duration": duration,
            "status": status, "payment_status": "paid" if status in ("active", "completed") else "created",
            "created_at": now, "updated_at": now,
            "gsi1pk": f"USER#{user.id}#ENROLLS", "gsi1sk": f"{now}#{eid}",
            "gsi2pk": "ENROLLS", "gsi2sk": f"{now}#{eid}",
            "gsi3pk": f"ENROLLS#{status}", "gsi3sk": f"{now}#{eid}"}
    if status in ("active", "completed"):
        item["activated_at"] = activated_at or now
    if status == "completed":
        item["completed_at"] = now
    if status == "cancelled":
        item["cancelled_at"] = now
    Table(settings().table_name).put(item)
    return item


def seed_milestone(enrollment, n, *, status="reviewed", reviewed_at=None, submitted_at=None, remarks="Good"):
    from internships.settings import settings
    from lambdakit import clock
    from lambdakit.ddb import Table

    now = clock.now_iso()
    mid = f"{enrollment['id']}-{n:02d}"
    item = {"pk": f"ENROLL#{enrollment['id']}", "sk": f"MS#{n:02d}", "id": mid, "enrollment_id": enrollment["id"],
            "user_id": enrollment["user_id"], "domain_id": enrollment["domain_id"], "order": n,
            "title": f"Week {n}", "status": status, "remarks": remarks, "created_at": now, "updated_at": now,
            "gsi1pk": f"MILESTONES#{status}", "gsi1sk": f"{now}#{mid}",
            "gsi2pk": f"USER#{enrollment['user_id']}#MILESTONES", "gsi2sk": f"{enrollment['id']}#{n:02d}"}
    if status in ("reviewed", "rejected"):
        item["reviewed_at"] = reviewed_at or now
    if submitted_at or status != "pending":
        item["submitted_at"] = submitted_at or now
    Table(settings().table_name).put(item)
    return item
