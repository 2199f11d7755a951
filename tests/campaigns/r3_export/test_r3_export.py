"""Contact export whose request cost does not grow (issues 3 and 12, slice r3-export).

Below ``CAMPAIGNS_EXPORT_INLINE_MAX_ROWS`` (decided from the counters) the export is answered
in the request as before; above it the request writes a job, queues it and answers 202 with
the presigned URL of the file the import worker then streams to S3."""
from __future__ import annotations

import csv
import io
import json

import boto3
import pytest

from local_runtime.callcount import count_calls
from tests.campaigns.conftest import OTHER_ACCOUNT, Pipeline

BOUNDARY = "----r3-export"


def _import(camp, rows: list[str], **fields: str) -> dict:
    text = "email,first_name,last_name,tags,note\r\n" + "\r\n".join(rows) + "\r\n"
    parts = [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields.items()]
    parts.append(f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\n'
                 f'Content-Type: text/csv\r\n\r\n'.encode() + text.encode() + b"\r\n")
    parts.append(f"--{BOUNDARY}--\r\n".encode())
    r = camp.post("/contacts/import", body=b"".join(parts),
                  headers={"content-type": f"multipart/form-data; boundary={BOUNDARY}"})
    assert r.status == 200, r.text
    return r.json()["data"]


def _rows(start: int, n: int) -> list[str]:
    # every third contact carries formula-looking cells that must be neutralised
    return [f'u{i:04d}@example.com,"=HYPERLINK(""x{i}"")",-{i},@t;ok,+SUM(A{i})' if i % 3 == 0
            else f"u{i:04d}@example.com,First{i},Last{i},plain,n{i}" for i in range(start, start + n)]


@pytest.fixture
def bound(monkeypatch):
    from lambdakit import settings as ls

    def _set(n: int) -> None:
        monkeypatch.setenv("CAMPAIGNS_EXPORT_INLINE_MAX_ROWS", str(n))
        ls.reset_settings()

    yield _set
    monkeypatch.delenv("CAMPAIGNS_EXPORT_INLINE_MAX_ROWS", raising=False)
    ls.reset_settings()


def _run_worker(app) -> int:
    pipe = Pipeline(app)
    url = app.envs["campaigns"].refs["ImportQueue"]
    handled = 0
    for _ in range(10):
        msgs = pipe.receive(url, 10)
        if not msgs:
            break
        assert pipe.run_batch(url, "ImportWorkerFunction", msgs) == []
        handled += len(msgs)
    return handled


def _object(app, job_id: str) -> tuple[bytes, dict]:
    bucket = app.envs["campaigns"].refs["FilesBucket"]
    s3 = boto3.client("s3")
    objs = s3.list_objects_v2(Bucket=bucket, Prefix="exports/").get("Contents", [])
    keys = [o["Key"] for o in objs if f"/{job_id}/" in o["Key"]]
    assert len(keys) == 1, keys
    got = s3.get_object(Bucket=bucket, Key=keys[0])
    return got["Body"].read(), got


def test_below_bound_inline_as_before(camp, bound):
    bound(50)
    _import(camp, _rows(0, 12))
    r = camp.get("/contacts/export")
    assert r.status == 200 and r.headers["content-type"].startswith("text/csv")
    assert r.headers["x-total-count"] == "12"
    rows = list(csv.DictReader(io.StringIO(r.text)))
    evil = next(x for x in rows if x["email"] == "u0003@example.com")
    assert evil["first_name"] == "'=HYPERLINK(\"x3\")" and evil["last_name"] == "'-3"
    assert evil["tags"] == "'@t;ok" and evil["note"] == "'+SUM(A3)" and len(rows) == 12
    # exactly at the bound: still inline
    bound(12)
    assert camp.get("/contacts/export").status == 200
    assert camp.get("/contacts/export", query={"list_id": "nope"}).status == 404


@pytest.mark.parametrize("query", [{}, {"format": "json", "fields": "email,tags,custom_fields"}, "list",
                                   {"status": "active", "fields": "email,first_name,custom_fields"}])
def test_above_bound_job_writes_what_inline_gives(camp, campaigns_app, bound, make_key, query):
    from campaigns.contacts.models import ExportJob, ExportJobStarted

    lid = camp.post("/lists", json={"name": "x"}).json()["data"]["id"]
    _import(camp, _rows(0, 7), list_id=lid)
    _import(camp, _rows(100, 5))
    if query == "list":
        query = {"list_id": lid, "format": "csv"}
    inline = camp.get("/contacts/export", query=query)  # default bound: inline
    assert inline.status == 200
    bound(5)
    r = camp.get("/contacts/export", query=query)
    assert r.status == 202, r.text
    d = ExportJobStarted.model_validate(r.json()["data"]).model_dump()
    expected = 7 if "list_id" in query else 12
    assert d["status"] == "queued" and d["total"] == expected and d["processed"] == 0
    assert d["url"].startswith("http") and d["expires_in"] == 3600 and d["job_id"] in d["url"]
    assert d["status_url"] == f"/contacts/exports/{d['job_id']}"
    st = camp.get(d["status_url"])
    assert st.status == 200 and st.json()["data"]["status"] == "queued" and st.json()["data"].get("url") is None
    # tenant isolation: another account's key gets 404 for the job
    other = make_key(account_id=OTHER_ACCOUNT)
    assert camp.get(d["status_url"], headers={"Authorization": f"Bearer {other}"}).status == 404
    assert camp.get("/contacts/exports/unknown").status == 404
    assert camp.get(f"/contacts/imports/{d['job_id']}").status == 404  # export jobs are not import jobs

    assert _run_worker(campaigns_app) == 1
    st = ExportJob.model_validate(camp.get(d["status_url"]).json()["data"]).model_dump()
    assert st["status"] == "completed" and st["processed"] == st["total"] == expected and st["progress"] == 100.0
    assert st["url"] and st["finished_at"] and st["failure"] is None
    body, meta = _object(campaigns_app, d["job_id"])
    assert body == inline.text.encode("utf-8")  # same bytes as the inline export of the same contacts
    assert meta["ContentType"] == inline.headers["content-type"]
    assert d["filename"] in meta["ContentDisposition"]
    if query.get("format") == "json":
        assert len(json.loads(body)) == expected
    # a redelivered message does not run a finished job again
    sqs = boto3.client("sqs")
    sqs.send_message(QueueUrl=campaigns_app.envs["campaigns"].refs["ImportQueue"],
                     MessageBody=json.dumps({"type": "export", "account_id": "acct-test", "job_id": d["job_id"]}))
    _run_worker(campaigns_app)
    assert camp.get(d["status_url"]).json()["data"]["finished_at"] == st["finished_at"]


def test_worker_progress_and_retry_then_failed(camp, campaigns_app, bound, monkeypatch):
    from campaigns.contacts import export as service
    from campaigns.contacts import jobs

    _import(camp, _rows(0, 14))
    bound(5)
    d = camp.get("/contacts/export").json()["data"]
    seen: list[int] = []
    real = jobs.export_progress
    monkeypatch.setattr(service, "_PAGE", 4)
    monkeypatch.setattr(jobs, "export_progress", lambda a, j, n: (seen.append(n), real(a, j, n)))

    def boom(*a, **k):
        raise RuntimeError("S3 down")

    monkeypatch.setattr(jobs, "upload_export", boom)
    for _ in range(1, service.EXPORT_MAX_ATTEMPTS):
        with pytest.raises(RuntimeError):  # SQS redelivers: the job stays running
            service.run_export_job("acct-test", d["job_id"])
        st = camp.get(d["status_url"]).json()["data"]
        assert st["status"] == "running" and st["processed"] == 12 and st["total"] == 14
        assert 0 < st["progress"] < 100
    assert seen[:3] == [4, 8, 12]
    assert service.run_export_job("acct-test", d["job_id"]) == "failed"
    st = camp.get(d["status_url"]).json()["data"]
    assert st["status"] == "failed" and st["failure"] == "Export failed"
    assert service.run_export_job("acct-test", d["job_id"]) == "skipped"


def test_request_cost_does_not_grow_above_the_bound(camp, bound):
    bound(5)
    lid = camp.post("/lists", json={"name": "cost"}).json()["data"]["id"]

    def measure(q: dict) -> tuple[int, int, dict]:
        with count_calls() as cc:
            r = camp.get("/contacts/export", query=q)
        assert r.status == 202, r.text
        ddb = {k: n for k, n in cc.calls.items() if k.startswith("dynamodb.")}
        return cc.items_read, cc.total("dynamodb"), ddb

    _import(camp, _rows(0, 10), list_id=lid)
    small = [measure({}), measure({"list_id": lid, "status": "active"})]
    _import(camp, _rows(1000, 190), list_id=lid)
    big = [measure({}), measure({"list_id": lid, "status": "active"})]
    print("export request cost (items read, ddb calls, calls):", small, big)
    assert small == big
    # the key, the rate limit and one counters read; no contact item is read in the request
    assert all(items <= 3 for items, _, _ in big), big
