"""AnalyticsWorker (SQS, partial batch failures): folds each graded attempt into the item
and test statistics exactly once (idempotency markers in the same transactions)."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from lambdakit import clock
from lambdakit.observability import worker_entry

from ..http import logger
from . import service

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse

processor = BatchProcessor(event_type=EventType.SQS)


def handle(record: SQSRecord) -> None:
    msg = json.loads(record.body)
    if msg.get("type") == "attempt_graded":
        service.fold_attempt(msg["attempt_id"])


@worker_entry(logger)
def lambda_handler(event: dict, context: Any) -> PartialItemFailureResponse:
    _ = clock
    return process_partial_response(event=event, record_handler=handle, processor=processor, context=context)
