"""SES feedback worker: EventBridge (source aws.ses) → FeedbackQueue → here."""
from __future__ import annotations

import json

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from lambdakit.observability import worker_entry

from ..http import logger
from . import service

# All-failed batches still answer with batchItemFailures (visibility was set per message).
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


def record_handler(record: SQSRecord) -> str:
    body = json.loads(record.body)
    detail = body.get("detail") if isinstance(body.get("detail"), dict) else body
    if "Message" in body and isinstance(body["Message"], str):  # SNS-wrapped notifications
        detail = json.loads(body["Message"])
    return service.apply_ses_event(detail)


@worker_entry(logger)
def lambda_handler(event: dict, context) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor,
                                    context=context)
