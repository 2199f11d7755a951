"""Import queue worker: S3 ObjectCreated events of uploads (via the import queue),
import continuations, asynchronous exports and list-detach jobs. Partial batch failures are reported."""
from __future__ import annotations

import json
import re
from urllib.parse import unquote_plus

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response

from lambdakit.observability import worker_entry

from ..http import logger
from . import imports

processor = BatchProcessor(event_type=EventType.SQS)
UPLOAD_KEY = re.compile(r"^imports/(?P<a>[^/]+)/(?P<job>[0-9a-z]+)\.csv$")
#: the import queue's maxReceiveCount (functions/campaigns/template.yaml): a delivery with this
#: receive count is the last before the dead-letter queue, so a job still failing on S3 fails then
MAX_RECEIVES = 3
_ctx = {"lambda": None}


def _time_left() -> int:
    ctx = _ctx["lambda"]
    return ctx.get_remaining_time_in_millis() if ctx else 900_000


def handle(body: dict, receive_count: int = 1) -> None:
    kind = body.get("type")
    last = receive_count >= MAX_RECEIVES
    if kind == "import_continue":
        imports.run_import_job(body["account_id"], body["job_id"], body["bucket"], body["key"],
                               time_left_ms=_time_left, last_attempt=last)
        return
    if kind == "export":  # the other kinds' modules load with their first message (cold start)
        from . import export

        export.run_export_job(body["account_id"], body["job_id"])
        return
    if kind == "detach_list":
        from . import membership

        membership.detach_list(body["account_id"], body["list_id"], budget_items=5000)
        return
    for rec in body.get("Records") or []:  # S3 event notification
        if not str(rec.get("eventName", "")).startswith("ObjectCreated"):
            continue
        bucket = rec["s3"]["bucket"]["name"]
        key = unquote_plus(rec["s3"]["object"]["key"])
        m = UPLOAD_KEY.match(key)
        if not m:
            logger.warning("ignoring upload with unexpected key")
            continue
        imports.run_import_job(m["a"], m["job"], bucket, key, time_left_ms=_time_left, last_attempt=last)


def record_handler(record) -> None:
    try:
        received = int((record.raw_event.get("attributes") or {}).get("ApproximateReceiveCount") or 1)
    except (TypeError, ValueError):
        received = 1
    handle(json.loads(record.body), received)


@worker_entry(logger)
def lambda_handler(event, context):
    _ctx["lambda"] = context
    return process_partial_response(event=event, record_handler=record_handler, processor=processor,
                                    context=context)
