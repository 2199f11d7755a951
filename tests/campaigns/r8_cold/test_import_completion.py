"""The import job's last chunk commits its progress and completes the job in one write (issue 21:
ImportWorkerFunction's calls), exactly once: a lost answer is recognised by the completion's
token, another worker's completion is not taken for this one."""
from __future__ import annotations

import json

import boto3
import pytest

from bench.callcount import count_calls
from lambdakit.errors import ConditionFailed


def _sqs_event(body: str) -> dict:
    return {"Records": [{"messageId": "m0", "receiptHandle": "r0", "body": body,
                         "attributes": {"ApproximateReceiveCount": "1"}, "messageAttributes": {}, "md5OfBody": "",
                         "eventSource": "aws:sqs", "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:q",
                         "awsRegion": "us-east-1"}]}


@pytest.fixture
def job(camp, campaigns_app):
    r = camp.post("/contacts/imports", json={})
    assert r.status == 202, r.text
    data = r.json()["data"]
    key = data["upload"]["fields"]["key"]
    bucket = campaigns_app.envs["campaigns"].refs["ImportUploadsBucket"]

    def upload(n: int) -> str:
        rows = "\n".join(f"i{i}@example.com,N{i}" for i in range(n))
        boto3.client("s3").put_object(Bucket=bucket, Key=key, Body=("email,first_name\n" + rows + "\n").encode())
        return json.dumps({"Records": [{"eventName": "ObjectCreated:Post",
                                        "s3": {"bucket": {"name": bucket}, "object": {"key": key}}}]})

    return data["job_id"], upload


def _status(camp, job_id: str) -> dict:
    return camp.get(f"/contacts/imports/{job_id}").json()["data"]


def _run(campaigns_app, event: str) -> dict:
    with count_calls() as cc:
        assert campaigns_app.campaigns.invoke_function("ImportWorkerFunction", _sqs_event(event)) == {
            "batchItemFailures": []}
    return cc.calls


@pytest.mark.parametrize("rows,updates", [(3, 2), (100, 3), (150, 3)])
def test_the_last_chunk_completes_the_job(camp, campaigns_app, job, rows, updates):
    """start + one commit per chunk; the last (partial) chunk's commit completes the job, a file
    ending on a full chunk is completed by its own write, as before."""
    job_id, upload = job
    calls = _run(campaigns_app, upload(rows))
    st = _status(camp, job_id)
    assert (st["status"], st["processed"], st["imported"], st["total"]) == ("completed", rows, rows, rows)
    assert st["finished_at"] and st["last_error"] is None
    assert calls["dynamodb.UpdateItem"] == updates
    assert camp.get("/contacts").json()["data"]["pagination"]["total"] == rows
    _run(campaigns_app, upload(rows))  # a duplicate event: nothing more
    assert _status(camp, job_id)["imported"] == rows


def test_a_lost_answer_of_the_completing_write_is_recognised(camp, campaigns_app, job, monkeypatch):
    from campaigns.contacts import jobs

    job_id, upload = job
    real = jobs._t
    lost: list[int] = []

    class LosingAnswers(type(real())):
        def update(self, pk, sk, **kw):
            out = super().update(pk, sk, **kw)
            if (kw.get("set") or {}).get("completed_by") and not lost:
                lost.append(1)
                raise ConditionFailed("the resent write found its own change")
            return out

    monkeypatch.setattr(jobs, "_t", lambda: LosingAnswers(real().name))
    finishes: list[str] = []
    real_finish = jobs.finish
    monkeypatch.setattr(jobs, "finish", lambda *a, **k: finishes.append(a[2]) or real_finish(*a, **k))
    _run(campaigns_app, upload(3))
    assert lost and finishes == []
    st = _status(camp, job_id)
    assert (st["status"], st["processed"], st["imported"]) == ("completed", 3, 3)


def test_another_workers_completion_is_not_this_one(camp, campaigns_app, job, monkeypatch):
    """The job is completed by another worker between this worker's chunk and its commit: the
    commit finds it not running and leaves it as it is (nothing counted twice)."""
    from campaigns.contacts import jobs

    job_id, upload = job
    real_advance = jobs.advance

    def racing(a, jid, expected, delta, errors, errors_len, **kw):
        real_advance(a, jid, expected, delta, errors, errors_len, **kw)  # the other worker, first
        return real_advance(a, jid, expected, delta, errors, errors_len, **kw)

    monkeypatch.setattr(jobs, "advance", racing)
    finishes: list[str] = []
    real_finish = jobs.finish
    monkeypatch.setattr(jobs, "finish", lambda *a, **k: finishes.append(a[2]) or real_finish(*a, **k))
    from campaigns.contacts import imports

    results: list[str] = []
    real_run = imports.run_import_job
    monkeypatch.setattr(imports, "run_import_job", lambda *a, **k: results.append(real_run(*a, **k)))
    _run(campaigns_app, upload(3))
    assert results == ["skipped"] and finishes == []
    st = _status(camp, job_id)
    assert (st["status"], st["processed"], st["imported"]) == ("completed", 3, 3)
