"""Send-queue worker (SQS, partial batch failures). Message types: ``start`` (an immediate
campaign), ``fanout`` (one step of a campaign's audience walk), ``batch`` (recipients of a campaign
or bulk send). Every type is safe to redeliver."""
from __future__ import annotations

import json

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from lambdakit.observability import worker_entry

from ..http import logger
from . import batches, pipeline
from . import repository as repo

# All-failed batches still answer with batchItemFailures (visibility was set per message).
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
_context = {"lambda": None}

THROTTLE_BACKOFF_SECONDS = 5


def _remaining_ms() -> int:
    ctx = _context["lambda"]
    return ctx.get_remaining_time_in_millis() if ctx is not None else 60_000


def record_handler(record: SQSRecord) -> None:
    from ..campaign import dispatcher

    msg = json.loads(record.body)
    kind = msg.get("type")
    try:
        if kind == "start":
            dispatcher.start(msg["campaign_id"])
        elif kind == "fanout":
            dispatcher.fanout(msg["campaign_id"], int(msg["seq"]))
        elif kind == "batch" and msg.get("bulk_id"):
            batches.run_bulk(msg, _remaining_ms)
        elif kind == "batch":
            batches.run_campaign(msg, _remaining_ms)
        else:
            logger.warning("unknown send message", extra={"type": kind})
    except pipeline.Throttled:
        repo.change_visibility(record.receipt_handle, THROTTLE_BACKOFF_SECONDS)
        raise


@worker_entry(logger)
def lambda_handler(event: dict, context) -> PartialItemFailureResponse:
    _context["lambda"] = context
    return process_partial_response(event=event, record_handler=record_handler, processor=processor,
                                    context=context)
