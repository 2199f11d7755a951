"""Send-queue worker (SQS, partial batch failures). Message types: ``start`` (an immediate
campaign), ``fanout`` (one step of a campaign's audience walk), ``batch`` (recipients of a campaign
or bulk send). Every type is safe to redeliver. The worker sits with campaign orchestration, the
highest layer the queue serves: campaign steps go to the dispatcher, a campaign's batch runs here
(the campaign is still sending? A/B counts, finish after the last batch), a bulk batch runs in
``campaigns.sending.batches``."""
from __future__ import annotations

import json
from typing import Callable

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from lambdakit.observability import worker_entry

from ..http import logger
from ..sending import batches, pipeline
from ..sending import repository as send_repo
from . import dispatcher
from . import repository as repo
from .sendctx import context

# All-failed batches still answer with batchItemFailures (visibility was set per message).
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
_context = {"lambda": None}

THROTTLE_BACKOFF_SECONDS = 5


def _remaining_ms() -> int:
    ctx = _context["lambda"]
    return ctx.get_remaining_time_in_millis() if ctx is not None else 60_000


def run_campaign_batch(message: dict, remaining_ms: Callable[[], int]) -> None:
    """Deliver one batch of a campaign: nothing once the campaign stopped sending (cancelled, gone);
    sends counted per A/B variant; the campaign finishes after its last batch."""
    cid = message["campaign_id"]
    item = repo.get(cid, consistent=True)
    if not item or item.get("status") != "sending":
        return  # cancelled (or gone): nothing more is sent
    ctx = context(item)

    def stopped() -> bool:
        fresh = repo.get(cid, consistent=True)
        return not fresh or fresh.get("status") != "sending"

    ctx.is_stopped = stopped

    def ab_add(results: list[pipeline.Result]) -> dict:
        out: dict = {}
        for r in results:
            if r.variant is not None and r.status not in ("skipped", "failed"):
                out[f"ab_sent_{r.variant}"] = out.get(f"ab_sent_{r.variant}", 0) + 1
        return out

    batches.run(ctx, message["recipients"], batch_no=int(message["batch_no"]), owner=repo.key(cid),
                remaining_ms=remaining_ms, extra_add=ab_add)
    dispatcher.maybe_finish(cid)


def record_handler(record: SQSRecord) -> None:
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
            run_campaign_batch(msg, _remaining_ms)
        else:
            logger.warning("unknown send message", extra={"type": kind})
    except pipeline.Throttled:
        send_repo.change_visibility(record.receipt_handle, THROTTLE_BACKOFF_SECONDS)
        raise


@worker_entry(logger)
def lambda_handler(event: dict, context) -> PartialItemFailureResponse:
    _context["lambda"] = context
    return process_partial_response(event=event, record_handler=record_handler, processor=processor,
                                    context=context)
