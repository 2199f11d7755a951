"""How the fault suite runs workers as their event sources would (see driver.RouteCase.call).

* ``drain``: an SQS event source mapping: receive, invoke the function with the batch, delete the
  records it did not report as failed; a failed record (or a whole batch whose invocation raised)
  is visible again at once (SQS redelivery, without the visibility wait), up to ``rounds`` batches;
* ``deliver``: the same for records that come from no queue of ours (SES feedback events):
  redelivered until handled;
* ``later``: run something with the service clock moved forward (a schedule that fires later,
  after a lease has expired).
"""
from __future__ import annotations

import contextlib
import json
from typing import Any, Iterator


def sqs_event(bodies: list[tuple[str, str]]) -> dict:
    """An SQS event of ``(message id, body)`` records."""
    return {"Records": [{"messageId": mid, "receiptHandle": mid, "body": body, "attributes": {"ApproximateReceiveCount": "1"},
                         "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
                         "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:q", "awsRegion": "us-east-1"}
                        for mid, body in bodies]}


def _failed(resp: Any) -> set[str]:
    return {f["itemIdentifier"] for f in (resp or {}).get("batchItemFailures", [])}


def drain(client: Any, queue_url: str, fn: str, *, rounds: int = 50, batch: int = 10) -> int:
    """Deliver the queue to ``fn`` until it is empty; returns the records handled."""
    import boto3

    sqs, handled = boto3.client("sqs", region_name="us-east-1"), 0
    for _ in range(rounds):
        msgs = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=batch, AttributeNames=["All"],
                                   VisibilityTimeout=0).get("Messages", [])
        if not msgs:
            return handled
        event = sqs_event([(m["MessageId"], m["Body"]) for m in msgs])
        for r, m in zip(event["Records"], msgs, strict=True):
            r["receiptHandle"], r["attributes"] = m["ReceiptHandle"], m.get("Attributes", {})
        try:
            failed = _failed(client.invoke_function(fn, event))
        except Exception:  # noqa: BLE001 - the whole batch is redelivered
            continue
        for m in msgs:
            if m["MessageId"] not in failed:
                sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=m["ReceiptHandle"])
                handled += 1
    return handled


def empty(queue_url: str) -> None:
    """Delete every visible message of the queue (PurgeQueue allows one call a minute)."""
    import boto3

    sqs = boto3.client("sqs", region_name="us-east-1")
    for _ in range(100):
        msgs = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, VisibilityTimeout=0).get("Messages", [])
        if not msgs:
            return
        for m in msgs:
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=m["ReceiptHandle"])


def deliver(client: Any, fn: str, bodies: list[dict], *, rounds: int = 10) -> int:
    """Deliver ``bodies`` (one record each) to ``fn`` until every record is handled."""
    pending = {f"m{i}": json.dumps(b) for i, b in enumerate(bodies)}
    for _ in range(rounds):
        if not pending:
            break
        try:
            failed = _failed(client.invoke_function(fn, sqs_event(list(pending.items()))))
        except Exception:  # noqa: BLE001 - the whole batch is redelivered
            continue
        pending = {k: b for k, b in pending.items() if k in failed}
    return len(bodies) - len(pending)


@contextlib.contextmanager
def later(seconds: float) -> Iterator[None]:
    from lambdakit import clock

    clock.set_offset(seconds)
    try:
        yield
    finally:
        clock.set_offset(0)

