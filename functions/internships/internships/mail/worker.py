"""EmailWorkerFunction: SQS batch consumer. Each record is ``{"emailId": "..."}``.

Uses Powertools ``BatchProcessor`` with partial batch failures: a record whose
processing raised (e.g. DynamoDB throttling) is reported back to SQS and
redelivered; the redrive policy moves it to the DLQ after 5 receives, while the
email item stays pending and the daily sweep still sends it. Provider failures
are not record failures: they are retried by the item's own backoff schedule.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from lambdakit.observability import worker_entry

from ..http import logger
from . import service

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse

processor = BatchProcessor(event_type=EventType.SQS)


def record_handler(record: SQSRecord) -> str:
    try:
        body = json.loads(record.body or "{}")
    except json.JSONDecodeError:
        logger.warning("dropping malformed email queue message")
        return "skipped"
    if isinstance(body, dict) and body.get("fanout") == "announcement" and isinstance(body.get("id"), str):
        # cold start: only fan-out messages need the announcement rules and the outbox
        from ..announcements import service as announcements
        from .outbox import enqueue_ex

        announcements.fan_out(body["id"], enqueue_ex)
        return "fanout"
    email_id = body.get("emailId") if isinstance(body, dict) else None
    if not isinstance(email_id, str) or not email_id:
        logger.warning("dropping email queue message without emailId")
        return "skipped"
    return service.process_email(email_id)


@worker_entry(logger)
def lambda_handler(event: dict, context: Any) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor,
                                    context=context)
