"""Issue 23 rule 4, contact imports' S3 side: S3 faults injected through botocore event hooks on
the real S3 client the product uses (``lambdakit.aws.client("s3")``, talking to moto), never
fakes; the state is read back through the API (and the table where the API does not show it).

* presigning the upload form fails → 503 ``FILE_STORE_UNAVAILABLE`` with ``Retry-After`` in the
  campaigns error format, and no import job exists (nothing waits for an upload);
* the worker cannot read the uploaded file (GetObject 5xx, SlowDown, a timeout; the worker reads
  the upload with one GetObject, its size from that answer, no HeadObject) →
  the message is redelivered, the job stays retryable with ``last_error``/``read_failures`` and
  completes on a later delivery with every row once; still failing at the queue's last delivery
  → ``failed`` with the reason; the file gone or denied → ``failed`` with the reason at once;
* deleting the processed upload fails → the job is completed all the same.
"""
from __future__ import annotations

import contextlib
import json
import uuid
from typing import Iterator

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError

from tests.campaigns.conftest import ACCOUNT

from .workers import empty, sqs_event

ROWS = 7


def _client_error(code: str, status: int, op: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": f"injected {code}"},
                        "ResponseMetadata": {"HTTPStatusCode": status}}, op)


@contextlib.contextmanager
def s3_fault(event: str, exc_factory, *, times: int = 10**9) -> Iterator[dict]:
    """Make the next ``times`` S3 calls that emit ``event`` raise ``exc_factory()``, on the
    product's S3 client (a botocore hook; the call never reaches moto)."""
    from lambdakit import aws

    state = {"fired": 0}

    def hook(**_):
        if state["fired"] < times:
            state["fired"] += 1
            raise exc_factory()

    uid = f"s3-fault-{uuid.uuid4().hex}"
    events = aws.client("s3").meta.events
    events.register(event, hook, unique_id=uid)
    try:
        yield state
    finally:
        events.unregister(event, unique_id=uid)


@pytest.fixture
def camp(camp):
    """The campaigns client (tests/campaigns/conftest.py), the import queue emptied afterwards."""
    yield camp
    empty(camp.env.refs["ImportQueue"])  # S3 notifications of our uploads: handled here already


def _import_jobs() -> list[dict]:
    from campaigns.contacts import jobs

    items, _ = jobs._t().query(f"ACCT#{ACCOUNT}", sk_prefix="IMPORT#", consistent=True, limit=1000)
    return items


def _csv(t: str) -> bytes:
    return ("email,first_name\r\n" + "".join(f"s{i}{t}@example.com,N{i}\r\n" for i in range(ROWS))).encode()


def _uploaded_job(camp) -> dict:
    """A job whose CSV is in the import bucket (uploaded as the presigned form would)."""
    import boto3

    t = uuid.uuid4().hex[:8]
    lid = camp.post("/lists", json={"name": f"L{t}"}).json()["data"]["id"]
    r = camp.post("/contacts/imports", json={"list_id": lid, "tags": [f"s3{t}"]})
    assert r.status == 202, r.text
    job = r.json()["data"]
    key = job["upload"]["fields"]["key"]
    bucket = camp.env.refs["ImportUploadsBucket"]
    boto3.client("s3", region_name="us-east-1").put_object(Bucket=bucket, Key=key, Body=_csv(t))
    return {"t": t, "list": lid, "job": job["job_id"], "bucket": bucket, "key": key}


def _deliver(camp, v: dict, receive_count: int) -> bool:
    """One delivery of the upload's S3 event to the import worker; True when it was handled
    (not reported back for redelivery)."""
    body = json.dumps({"Records": [{"eventName": "ObjectCreated:Post", "s3": {
        "bucket": {"name": v["bucket"]}, "object": {"key": v["key"]}}}]})
    event = sqs_event([("m1", body)])
    event["Records"][0]["attributes"]["ApproximateReceiveCount"] = str(receive_count)
    return _invoke(camp, event)


def _invoke(camp, event: dict) -> bool:
    try:
        resp = camp.invoke_function("ImportWorkerFunction", event)
    except Exception:  # noqa: BLE001 - every record of the batch failed: SQS delivers the batch again
        return False
    return not (resp or {}).get("batchItemFailures")


def _job(camp, v: dict) -> dict:
    r = camp.get(f"/contacts/imports/{v['job']}")
    assert r.status == 200, r.text
    return r.json()["data"]


def _imported(camp, v: dict) -> dict:
    rows = camp.get("/contacts", query={"list_id": v["list"], "limit": 100}).json()["data"]["contacts"]
    return {"members": sorted(c["email"] for c in rows),
            "contact_count": camp.get(f"/lists/{v['list']}").json()["data"]["contact_count"],
            "tagged": camp.get("/contacts", query={"tag": f"s3{v['t']}"}).json()["data"]["pagination"]["total"]}


def _all_rows(v: dict) -> dict:
    return {"members": sorted(f"s{i}{v['t']}@example.com" for i in range(ROWS)), "contact_count": ROWS,
            "tagged": ROWS}


# ---------------------------------------------------------------- the upload form (presign)
@pytest.mark.parametrize("fault", [
    lambda: _client_error("ServiceUnavailable", 503, "CreateBucket"),
    lambda: EndpointConnectionError(endpoint_url="https://s3.amazonaws.com"),
], ids=["ClientError-503", "EndpointConnectionError"])
def test_presign_failure_is_503_and_creates_no_job(camp, fault):
    before = len(_import_jobs())
    # generate_presigned_post builds its request from the CreateBucket model (botocore)
    with s3_fault("before-parameter-build.s3.CreateBucket", fault) as f:
        r = camp.post("/contacts/imports", json={"tags": ["x"]})
    assert f["fired"] == 1
    assert r.status == 503, r.text
    body = r.json()
    assert body["success"] is False and body["error"]["code"] == "FILE_STORE_UNAVAILABLE", body
    assert "retry-after" in {k.lower() for k in r.headers}
    assert "Traceback" not in r.text
    assert len(_import_jobs()) == before  # nothing waits for an upload that cannot come
    # the client's retry works
    assert camp.post("/contacts/imports", json={"tags": ["x"]}).status == 202


# ---------------------------------------------------------------- the worker reading the upload
TRANSIENT = {
    "GetObject-SlowDown": ("before-call.s3.GetObject", lambda: _client_error("SlowDown", 503, "GetObject")),
    "GetObject-InternalError": ("before-call.s3.GetObject", lambda: _client_error("InternalError", 500, "GetObject")),
    # a bare status as the code (what a HeadObject 5xx carries: its answer has no body)
    "GetObject-503": ("before-call.s3.GetObject", lambda: _client_error("503", 503, "GetObject")),
    "GetObject-ReadTimeout": ("before-call.s3.GetObject",
                              lambda: ReadTimeoutError(endpoint_url="https://s3.amazonaws.com")),
}


@pytest.mark.parametrize("name", sorted(TRANSIENT))
def test_transient_read_failure_leaves_job_retryable_then_completes(camp, name):
    event, fault = TRANSIENT[name]
    v = _uploaded_job(camp)
    with s3_fault(event, fault, times=1) as f:
        assert _deliver(camp, v, 1) is False  # reported failed: SQS delivers it again
    assert f["fired"] == 1
    job = _job(camp, v)
    assert job["status"] == "awaiting_upload" and job["read_failures"] == 1 and job["last_error"], job
    assert job["imported"] == 0 and job["processed"] == 0
    assert _imported(camp, v)["contact_count"] == 0  # nothing recorded as imported
    assert _deliver(camp, v, 2) is True  # the redelivery
    job = _job(camp, v)
    assert (job["status"], job["processed"], job["imported"], job["last_error"]) == ("completed", ROWS, ROWS, None)
    assert _imported(camp, v) == _all_rows(v)
    assert _deliver(camp, v, 1) is True and _job(camp, v)["imported"] == ROWS  # a duplicate event: nothing twice


def test_read_failing_until_the_last_delivery_fails_the_job_with_reason(camp):
    v = _uploaded_job(camp)
    with s3_fault("before-call.s3.GetObject", lambda: _client_error("InternalError", 500, "GetObject")) as f:
        assert _deliver(camp, v, 1) is False
        assert _deliver(camp, v, 2) is False
        assert _job(camp, v)["status"] == "awaiting_upload"
        assert _deliver(camp, v, 3) is True  # the queue's last delivery: the job fails instead of dead-lettering
    assert f["fired"] == 3
    job = _job(camp, v)
    assert job["status"] == "failed" and job["read_failures"] == 3, job
    assert "could not be read from storage" in job["failure"] and "InternalError" in job["failure"]
    assert job["finished_at"] and job["imported"] == 0
    assert _imported(camp, v)["contact_count"] == 0
    assert _deliver(camp, v, 1) is True and _job(camp, v)["status"] == "failed"  # final


def test_read_failure_counted_on_the_job_fails_it_at_the_budget(camp):
    """Without the queue's receive count (another event source), the job's own count decides."""
    v = _uploaded_job(camp)
    with s3_fault("before-call.s3.GetObject", lambda: _client_error("SlowDown", 503, "GetObject")):
        results = [_deliver(camp, v, 1) for _ in range(3)]
    assert results == [False, False, True]
    assert _job(camp, v)["status"] == "failed"


@pytest.mark.parametrize("code,status,op,expect", [
    ("404", 404, "GetObject", "not found"),
    ("NoSuchKey", 404, "GetObject", "not found"),
    ("AccessDenied", 403, "GetObject", "access denied"),
])
def test_gone_or_denied_upload_fails_the_job_at_once(camp, code, status, op, expect):
    v = _uploaded_job(camp)
    with s3_fault(f"before-call.s3.{op}", lambda: _client_error(code, status, op)):
        assert _deliver(camp, v, 1) is True  # not retried: it cannot get better
    job = _job(camp, v)
    assert job["status"] == "failed" and expect in job["failure"], job
    assert _imported(camp, v)["contact_count"] == 0


def test_the_upload_is_read_with_one_get_and_a_file_over_the_limit_fails_unread(camp, monkeypatch):
    """Issue 21 (ImportWorkerFunction's calls): one GetObject reads the upload, no HeadObject; a file
    over the job's limit fails with "File too large" from that answer's size, its body never read,
    nothing imported, and a later delivery changes nothing."""
    from botocore.response import StreamingBody

    from campaigns.settings import settings
    from lambdakit import aws

    small = settings().model_copy(update={"import_job_max_bytes": len(_csv("x" * 8)) - 1})
    ops: list[str] = []
    reads: list[int] = []
    real_read = StreamingBody.read
    monkeypatch.setattr(StreamingBody, "read", lambda self, *a, **k: reads.append(1) or real_read(self, *a, **k))
    events = aws.client("s3").meta.events
    uid = f"s3-ops-{uuid.uuid4().hex}"
    events.register("before-call.s3", lambda model, **_: ops.append(model.name), unique_id=uid)
    try:
        v = _uploaded_job(camp)
        ops.clear()
        monkeypatch.setattr("campaigns.contacts.imports.settings", lambda: small)
        assert _deliver(camp, v, 1) is True  # not retried: it cannot get better
        assert ops == ["GetObject"] and reads == [], (ops, reads)
        job = _job(camp, v)
        assert (job["status"], job["failure"], job["imported"], job["processed"]) == ("failed", "File too large", 0, 0)
        assert _imported(camp, v)["contact_count"] == 0
        monkeypatch.undo()
        ops.clear()
        assert _deliver(camp, v, 1) is True and _job(camp, v)["status"] == "failed"  # final
        assert ops == []  # the failed job is not read again

        w = _uploaded_job(camp)  # within the limit: one GetObject, then the processed upload deleted
        ops.clear()
        assert _deliver(camp, w, 1) is True
        assert ops == ["GetObject", "DeleteObject"], ops
        assert _imported(camp, w) == _all_rows(w)
    finally:
        events.unregister("before-call.s3", unique_id=uid)


def test_read_failure_of_a_continuation_keeps_the_running_job_retryable(camp, monkeypatch):
    """A job part way through (a continuation message): a failed read leaves it running at its
    committed row; the redelivery finishes it with every row once."""
    from campaigns.settings import settings

    few = settings().model_copy(update={"import_rows_per_invocation": 1})
    monkeypatch.setattr("campaigns.contacts.imports.settings", lambda: few)
    monkeypatch.setattr("campaigns.contacts.importer.CHUNK", 3)
    v = _uploaded_job(camp)
    assert _deliver(camp, v, 1) is True  # first chunk, then a continuation is queued
    job = _job(camp, v)
    assert job["status"] == "running" and job["processed"] == 3, job
    cont = json.dumps({"type": "import_continue", "account_id": ACCOUNT, "job_id": v["job"], "bucket": v["bucket"],
                       "key": v["key"]})
    with s3_fault("before-call.s3.GetObject", lambda: _client_error("SlowDown", 503, "GetObject")):
        assert _invoke(camp, sqs_event([("c1", cont)])) is False
    job = _job(camp, v)
    assert (job["status"], job["processed"], job["read_failures"]) == ("running", 3, 1) and job["last_error"]
    for _ in range(5):  # redeliveries until done (each handles one chunk and queues the next)
        if _job(camp, v)["status"] == "completed":
            break
        assert _invoke(camp, sqs_event([("c1", cont)])) is True
    job = _job(camp, v)
    assert (job["status"], job["processed"], job["imported"]) == ("completed", ROWS, ROWS), job
    assert _imported(camp, v) == _all_rows(v)


def test_delete_of_processed_upload_failing_does_not_fail_the_job(camp):
    v = _uploaded_job(camp)
    with s3_fault("before-call.s3.DeleteObject", lambda: _client_error("InternalError", 500, "DeleteObject")) as f:
        assert _deliver(camp, v, 1) is True
    assert f["fired"] == 1
    job = _job(camp, v)
    assert (job["status"], job["imported"]) == ("completed", ROWS)
    assert _imported(camp, v) == _all_rows(v)


def test_job_whose_upload_never_came_fails_after_the_form_expired(camp):
    """The client's upload to S3 failed (S3 answered it; nothing recorded as uploaded): the job
    waits while the form may still be used, then is failed for good, even if an event comes late."""
    from campaigns.contacts import imports

    from .workers import later

    v = _uploaded_job(camp)
    job = _job(camp, v)
    assert job["status"] == "awaiting_upload" and job["failure"] is None
    ttl = camp.post("/contacts/imports", json={}).json()["data"]["upload"]["expires_in"]
    with later(ttl + imports.UPLOAD_GRACE - 60):
        assert _job(camp, v)["status"] == "awaiting_upload"
    with later(ttl + imports.UPLOAD_GRACE + 60):
        job = _job(camp, v)
        assert (job["status"], job["failure"]) == ("failed", imports.NO_UPLOAD)
        assert _deliver(camp, v, 1) is True  # a late event: refused, the job stays failed
        assert _job(camp, v)["status"] == "failed"
    assert _imported(camp, v)["contact_count"] == 0
