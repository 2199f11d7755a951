"""The service's single email queue: DynamoDB items hold state, SQS carries work.

``outbox.enqueue`` is the only entry point other domains use. The queue worker
(``worker.lambda_handler``) and the ``process-emails`` scheduled job both call
``service.process_email``; a conditional claim makes each email go out once.
"""
