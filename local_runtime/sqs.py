"""SQS event-source mapping emulation.

A ``Poller`` per (function, SQS event) receives batches of up to ``BatchSize``
messages (waiting at most ``MaximumBatchingWindowInSeconds`` to fill a batch), invokes
the function with a Lambda SQS event and then, as Lambda does:

* success without ``ReportBatchItemFailures``: deletes the whole batch;
* with ``ReportBatchItemFailures``: deletes all but the ``batchItemFailures``
  (an unknown/empty ``itemIdentifier`` or a malformed response fails the whole batch);
* an exception: deletes nothing.

Messages not deleted become visible again after the queue's visibility timeout; the
queue's redrive policy (``maxReceiveCount``) moves them to the DLQ, as on AWS.
"""
from __future__ import annotations

import hashlib
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from .stack import REGION, Function

log = logging.getLogger("local_runtime.sqs")


@dataclass
class EventSource:
    function: Function
    name: str
    queue_arn: str
    queue_url: str
    batch_size: int
    window: float
    report_failures: bool
    enabled: bool = True


def event_sources(fn: Function, resolve: Callable[[Any], Any], url_of: Callable[[str], str | None]) -> list[EventSource]:
    out = []
    for name, ev in (fn.events or {}).items():
        if ev.get("Type") != "SQS":
            continue
        p = resolve(ev.get("Properties") or {})
        arn = p["Queue"]
        url = url_of(arn)
        if url is None:
            raise ValueError(f"{fn.logical_id}.{name}: queue {arn} is not declared in the template")
        out.append(EventSource(fn, name, arn, url, int(p.get("BatchSize", 10)),
                               float(p.get("MaximumBatchingWindowInSeconds", 0)),
                               "ReportBatchItemFailures" in (p.get("FunctionResponseTypes") or []),
                               bool(p.get("Enabled", True))))
    return out


def _message_attributes(attrs: dict) -> dict:
    out = {}
    for k, v in (attrs or {}).items():
        out[k] = {"stringValue": v.get("StringValue"), "binaryValue": v.get("BinaryValue"),
                  "stringListValues": v.get("StringListValues", []), "binaryListValues": v.get("BinaryListValues", []),
                  "dataType": v.get("DataType")}
        if out[k]["binaryValue"] is not None:
            import base64

            out[k]["binaryValue"] = base64.b64encode(out[k]["binaryValue"]).decode()
    return out


def sqs_event(messages: list[dict], queue_arn: str) -> dict:
    """Lambda's SQS event for received messages (boto3 ``receive_message`` shape)."""
    return {"Records": [{
        "messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
        "attributes": m.get("Attributes", {}), "messageAttributes": _message_attributes(m.get("MessageAttributes", {})),
        "md5OfBody": m.get("MD5OfBody") or hashlib.md5(m["Body"].encode()).hexdigest(),  # noqa: S324 - SQS's own digest
        "eventSource": "aws:sqs", "eventSourceARN": queue_arn, "awsRegion": REGION,
    } for m in messages]}


def failed_ids(response: Any, message_ids: list[str], report_failures: bool) -> set[str]:
    """Message ids to leave on the queue after a successful invocation."""
    if not report_failures:
        return set()
    if response is None or response == {} or response == "":
        return set()
    if not isinstance(response, dict) or not isinstance(response.get("batchItemFailures", []), list):
        return set(message_ids)
    out = set()
    for f in response.get("batchItemFailures") or []:
        ident = f.get("itemIdentifier") if isinstance(f, dict) else None
        if not ident or ident not in message_ids:
            return set(message_ids)  # Lambda treats an invalid identifier as a failure of the whole batch
        out.add(ident)
    return out


class Poller(threading.Thread):
    def __init__(self, source: EventSource, sqs: Any, invoke: Callable[[Function, dict], Any],
                 stop: threading.Event) -> None:
        super().__init__(name=f"sqs-{source.function.logical_id}-{source.name}", daemon=True)
        self.source = source
        self.sqs = sqs
        self.invoke = invoke
        self.stopping = stop

    def receive(self) -> list[dict]:
        s = self.source
        batch: list[dict] = []
        deadline = time.monotonic() + s.window
        while len(batch) < s.batch_size and not self.stopping.is_set():
            r = self.sqs.receive_message(QueueUrl=s.queue_url, MaxNumberOfMessages=min(10, s.batch_size - len(batch)),
                                         WaitTimeSeconds=1 if not batch else 0, AttributeNames=["All"],
                                         MessageAttributeNames=["All"])
            got = r.get("Messages", [])
            batch.extend(got)
            if not got and (batch or time.monotonic() >= deadline):
                break
            if time.monotonic() >= deadline and batch:
                break
        return batch

    def run_once(self) -> int:
        s = self.source
        batch = self.receive()
        if not batch:
            return 0
        ids = [m["MessageId"] for m in batch]
        try:
            resp = self.invoke(s.function, sqs_event(batch, s.queue_arn))
        except Exception:  # noqa: BLE001 - the function failed: the batch returns to the queue
            log.exception("%s failed on a batch of %d", s.function.logical_id, len(batch))
            return len(batch)
        keep = failed_ids(resp, ids, s.report_failures)
        done = [m for m in batch if m["MessageId"] not in keep]
        for i in range(0, len(done), 10):
            self.sqs.delete_message_batch(QueueUrl=s.queue_url, Entries=[
                {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(done[i:i + 10])])
        if keep:
            log.info("%s: %d of %d messages failed; they return after the visibility timeout",
                     s.function.logical_id, len(keep), len(batch))
        return len(batch)

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                self.run_once()
            except Exception:  # noqa: BLE001 - keep polling (emulator restarting, etc.)
                log.exception("poller %s", self.name)
                self.stopping.wait(1)
