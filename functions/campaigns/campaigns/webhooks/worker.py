"""Webhook delivery worker (SQS, partial batch failures). A failed attempt sets the message's
visibility to the next backoff step and reports it failed, so SQS brings it back later."""
from __future__ import annotations

import json

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from lambdakit.observability import worker_entry

from ..http import logger
from . import repository as repo
from . import service

# All-failed batches still answer with batchItemFailures (visibility was set per message).
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


def record_handler(record: SQSRecord) -> str:
    message = json.loads(record.body)
    try:
        return service.deliver(message)
    except service.RetryLater as later:
        repo.change_visibility(record.receipt_handle, later.delay)
        raise


@worker_entry(logger)
def lambda_handler(event: dict, context) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor,
                                    context=context)
