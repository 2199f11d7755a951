"""Helpers of the delivery slice tests (importable by name)."""
from __future__ import annotations

import os
from dataclasses import dataclass


def mcq(text: str, correct: str = "A", marks: float = 1, **kw) -> dict:
    return {"question_text": text, "question_type": "mcq", "option_a": "a", "option_b": "b", "option_c": "c",
            "option_d": "d", "correct_answer": correct, "marks": marks, **kw}


@dataclass
class Tenant:
    app: object
    users: object
    client: dict
    ca: object
    students: list

    @property
    def cid(self) -> str:
        return self.client["id"]

    def question(self, **body) -> dict:
        r = self.app.exams.post("/api/questions", json=body, headers=self.ca.headers)
        assert r.status == 201, r.text
        return r.json()["data"]

    def questions(self, n: int, **kw) -> list[dict]:
        return [self.question(**mcq(f"Q{i}", **kw)) for i in range(n)]

    def test(self, question_ids=None, publish=True, **body) -> dict:
        payload = {"test_name": "Exam", "timer": 30, "question_ids": question_ids or [], **body}
        r = self.app.exams.post("/api/tests", json=payload, headers=self.ca.headers)
        assert r.status == 201, r.text
        t = r.json()["data"]
        if publish:
            r = self.app.exams.post(f"/api/tests/{t['id']}/publish", headers=self.ca.headers)
            assert r.status == 200, r.text
            t = r.json()["data"]
        return t

    def start(self, test: dict, student=None) -> dict:
        s = student or self.students[0]
        r = self.app.exams.post("/api/attempts", json={"test_id": test["id"], "student_id": s.id}, headers=s.headers)
        assert r.status == 201, r.text
        return r.json()["data"]

    def guest(self, test: dict, name: str = "Guest One") -> dict:
        r = self.app.exams.post("/api/attempts", json={"share_code": test["share_code"], "guest_name": name})
        assert r.status == 201, r.text
        return r.json()["data"]




def drain_analytics(app) -> int:
    """Deliver queued analytics messages to the worker as SQS events; returns messages processed."""
    import boto3

    sqs = boto3.client("sqs", region_name="us-east-1")
    url = os.environ["EXAMS_ANALYTICS_QUEUE_URL"]
    n = 0
    while True:
        msgs = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not msgs:
            return n
        event = {"Records": [{"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
                              "attributes": {}, "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
                              "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:q", "awsRegion": "us-east-1"}
                             for m in msgs]}
        resp = app.exams.invoke_function("AnalyticsWorkerFunction", event)
        failed = {f["itemIdentifier"] for f in (resp or {}).get("batchItemFailures", [])}
        for m in msgs:
            if m["MessageId"] not in failed:
                sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
        n += len(msgs) - len(failed)
        if failed:
            return n



def principal_of(user):
    """The domain-layer principal of a fixture user (for service-level concurrency tests)."""
    from exams.identity import Principal

    return Principal(user_id=user.id, role=user.role, client_id=user.client_id, email=user.email, name=user.name)
