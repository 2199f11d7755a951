"""Issue 23 rule 4: SES throttling (or its 5xx) during a bulk send is retried with backoff; the
recipient is not marked failed and not sent twice.

A botocore ``before-call`` hook answers SES's own throttling errors for the first SendEmail calls
(real clients, moto behind them); the send worker's batch reports the throttled messages as
failures, the queue redelivers them, and the bulk completes with every recipient sent once."""
from __future__ import annotations

import json
import os

from botocore.awsrequest import AWSResponse


def _throttle_first(n: int, sent: list[str]):
    answers = iter([("TooManyRequestsException", 429), ("InternalFailure", 500)] * n)
    budget = [n]

    def hook(model, params, **kw):
        if model.name != "SendEmail":
            return None
        if budget[0] > 0:
            budget[0] -= 1
            code, status = next(answers)
            parsed = {"Error": {"Code": code, "Message": "slow down"},
                      "ResponseMetadata": {"HTTPStatusCode": status, "HTTPHeaders": {}, "RetryAttempts": 0}}
            return AWSResponse("https://email", status, {}, None), parsed
        body = json.loads(params.get("body") or b"{}")  # before-call sees the serialised request
        sent.append(str((body.get("Destination") or {}).get("ToAddresses")))
        return None

    return hook


def test_bulk_send_rides_out_ses_throttling_without_failing_or_duplicating(camp, pipe):
    from lambdakit import aws

    sent: list[str] = []
    ses = aws.client("sesv2")
    ses.meta.events.register("before-call.sesv2.SendEmail", _throttle_first(3, sent), unique_id="bulk-throttle")
    try:
        r = camp.post("/email/bulk", json={"recipients": [{"to": f"t{i}@example.com"} for i in range(4)],
                                            "subject": "Hello", "text": "hi",
                                            "provider": {"provider": "ses", "from_email": "news@example.com"}})
        assert r.status == 202, r.text
        bulk_id = r.json()["data"]["bulk_id"]
        url = os.environ["CAMPAIGNS_SEND_QUEUE_URL"]
        rounds = 0
        while rounds < 10:
            msgs = pipe.receive(url)
            if not msgs:
                break
            rounds += 1
            failed = set(pipe.run_batch(url, "SendWorkerFunction", msgs))
            for m in msgs:  # what the event source does after the visibility timeout
                if m["MessageId"] in failed:
                    pipe.sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"],
                                                       VisibilityTimeout=0)
            st = camp.get(f"/email/bulk/{bulk_id}").json()["data"]
            assert st["failed"] == 0, st  # a throttle never fails a recipient
        st = camp.get(f"/email/bulk/{bulk_id}").json()["data"]
        assert rounds >= 2, "the throttled messages came back"
        assert st["status"] == "completed" and st["sent"] == 4 and st["failed"] == 0, st
        assert sorted(sent) == sorted(str([f"t{i}@example.com"]) for i in range(4))  # each sent once
    finally:
        ses.meta.events.unregister("before-call.sesv2.SendEmail", unique_id="bulk-throttle")
