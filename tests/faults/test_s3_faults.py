"""Issue 23 rule 4: "An S3 upload or presign failure: a clear error, nothing recorded as uploaded".

Every S3 operation on a request path (contact imports excepted: their own suite) meets S3 faults
injected through botocore event hooks on the real client talking to moto (``s3inject``): S3's
busy answers (``SlowDown``, ``ServiceUnavailable``, ``InternalError``), a connection or read
timeout, a refusal (``AccessDenied``), and for presigns missing credentials or a failed refresh.
Each case checks

* the answer: the service's own error format, 503 with ``Retry-After`` and code
  ``FILE_STORE_UNAVAILABLE`` for a transient fault, 500 ``FILE_STORE_ERROR`` for any other (one
  mapping, ``lambdakit.s3``), no stack trace, an ``X-Request-Id``;
* the state read back: no record says the file is stored (no event, no evidence key, no new
  avatar, no activity entry, no queued email...), no counter advanced, no object left; and the
  same request sent again without the fault succeeds as on a clean run;
* the reverse order where a record follows a successful upload: the record's write fails, the
  object is deleted (or, left behind, it is under a key no item names and a lifecycle rule
  expires its prefix).
"""
from __future__ import annotations

import base64
import os

import pytest

from tests.exams.delivery.delivery_helpers import mcq

from .inject import inject
from .s3inject import PERMANENT, PRESIGN_PERMANENT, PRESIGN_TRANSIENT, TRANSIENT, expected, keys, s3_fault

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
UPLOAD_FAULTS = TRANSIENT + PERMANENT
PRESIGN_FAULTS = PRESIGN_TRANSIENT + PRESIGN_PERMANENT
#: internships errors carry only a message: the clear ones of ``lambdakit.s3`` (never the resolver's
#: generic "Internal server error")
INTERNSHIPS_MESSAGES = {"FILE_STORE_UNAVAILABLE": {"The file store is unavailable, please retry"},
                        "FILE_STORE_ERROR": {"The file could not be stored", "The file could not be read",
                                             "A link to the file could not be made",
                                             "The export could not be stored"}}


def check_error(service: str, r, fault: str) -> None:
    """The faulted answer: status and code of ``expected(fault)``, in ``service``'s format."""
    status, code = expected(fault)
    assert r.status == status, (fault, r.status, r.text)
    text = r.text
    assert "Traceback" not in text and "botocore" not in text and "injected" not in text, text
    assert r.headers.get("x-request-id"), r.headers
    body = r.json()
    if service == "exams":
        assert (body["error"], body["status"]) == (code, status) and body["message"], body
    elif service == "campaigns":
        assert body["success"] is False and body["error"]["code"] == code and body["error"]["message"], body
    else:
        assert list(body) == ["error"] and isinstance(body["error"], str) and body["error"], body
        assert body["error"] in INTERNSHIPS_MESSAGES[code], body
    if status == 503:
        assert r.headers.get("retry-after") == "1", r.headers
    else:
        assert "retry-after" not in r.headers


# ================================================================ exams: proctoring evidence
def _evidence_body(a: dict, event_type: str = "NO_FACE") -> dict:
    return {"attempt_id": a["id"], "test_id": a["test_id"], "event_type": event_type,
            "evidence": base64.b64encode(PNG).decode()}


def _proctoring_state(tenant, a: dict) -> dict:
    app = tenant.app
    att = app.exams.get(f"/api/attempts/{a['id']}", headers=tenant.ca.headers).json()["data"]
    ev = app.exams.get("/api/proctoring/events", query={"attempt_id": a["id"]}, headers=tenant.ca.headers).json()
    bucket = os.environ["EXAMS_EVIDENCE_BUCKET"]
    return {"risk_score": int(att.get("risk_score") or 0), "status": att["status"],
            "events": ev["pagination"]["total"], "listed": len(ev["data"]),
            "objects": keys(bucket, f"evidence/{a['client_id']}/{a['id']}/")}


@pytest.fixture
def started(tenant):
    t = tenant.test([tenant.question(**mcq("Q"))["id"]])
    a = tenant.start(t)
    return {**a, "test_id": t["id"], "client_id": tenant.client["id"]}


def _resend_records_once(tenant, started) -> None:
    """The same request without the fault: recorded (201), not a duplicate of a lost event."""
    st = tenant.students[0]
    r = tenant.app.exams.post("/api/proctoring/events", json=_evidence_body(started), headers=st.headers)
    assert r.status == 201, r.text
    assert r.json()["data"]["duplicate"] is False and r.json()["data"]["evidence_url"]
    after = _proctoring_state(tenant, started)
    assert (after["events"], after["risk_score"], len(after["objects"])) == (1, 3, 1), after


@pytest.mark.parametrize("op,fault", [("PutObject", f) for f in UPLOAD_FAULTS] + [("presign", f) for f in PRESIGN_FAULTS])
def test_proctoring_evidence_s3_failure_stores_and_records_nothing(tenant, started, op, fault):
    """The evidence upload or its link fails: nothing stored, no event, no risk; the resend records once."""
    st = tenant.students[0]
    with s3_fault(op, fault) as f:
        r = tenant.app.exams.post("/api/proctoring/events", json=_evidence_body(started), headers=st.headers)
    assert f.fired == 1
    check_error("exams", r, fault)
    state = _proctoring_state(tenant, started)
    assert state == {"risk_score": 0, "status": "in_progress", "events": 0, "listed": 0, "objects": []}, state
    _resend_records_once(tenant, started)


@pytest.mark.parametrize("fault", ["ProvisionedThroughputExceededException", "InternalServerError"])
def test_proctoring_record_failure_after_upload_deletes_the_evidence(tenant, started, fault):
    """The reverse order: the object is stored, then the event's transaction fails. The answer is
    the DynamoDB fault's (503 THROTTLED / 500), no event is recorded and the object is deleted."""
    st = tenant.students[0]
    with inject("TransactWriteItems", fault, item=lambda t, pk, sk: sk.startswith("P#EV#")) as f:
        r = tenant.app.exams.post("/api/proctoring/events", json=_evidence_body(started), headers=st.headers)
    assert f.fired == 1
    assert r.status == (503 if fault.startswith("Provisioned") else 500), r.text
    assert "Traceback" not in r.text and r.json()["error"]
    state = _proctoring_state(tenant, started)
    assert state == {"risk_score": 0, "status": "in_progress", "events": 0, "listed": 0, "objects": []}, state
    _resend_records_once(tenant, started)


@pytest.mark.parametrize("fault", PRESIGN_FAULTS)
def test_proctoring_event_list_presign_failure(tenant, started, fault):
    st = tenant.students[0]
    assert tenant.app.exams.post("/api/proctoring/events", json=_evidence_body(started),
                                 headers=st.headers).status == 201
    with s3_fault("presign", fault) as f:
        r = tenant.app.exams.get("/api/proctoring/events", query={"attempt_id": started["id"]},
                                 headers=tenant.ca.headers)
    assert f.fired == 1
    check_error("exams", r, fault)
    assert _proctoring_state(tenant, started)["events"] == 1


# ================================================================ campaigns: attachments
@pytest.fixture
def pipe(campaigns_app):
    from tests.campaigns.conftest import Pipeline

    return Pipeline(campaigns_app)


SANDBOX = {"provider": "sandbox", "from_email": "news@example.com"}
PDF = b"%PDF-1.4 attachment"


def _stored_upload(camp, campaigns_app) -> str:
    """An attachment uploaded as the presigned form would store it."""
    from lambdakit import aws

    r = camp.post("/attachments", json={"filename": "terms.pdf", "type": "application/pdf"})
    assert r.status == 201, r.text
    d = r.json()["data"]
    aws.client("s3").put_object(Bucket=campaigns_app.envs["campaigns"].refs["FilesBucket"], Key=d["upload"]["fields"]["key"],
                                Body=PDF, ContentType="application/pdf", Metadata={"filename": "terms.pdf"})
    return d["attachment_id"]


def _send_body(aid: str, to: str = "s3fault@example.com") -> dict:
    return {"to": to, "subject": "Terms", "text": "attached", "provider": SANDBOX,
            "attachments": [{"attachment_id": aid}]}


def _outbox(camp, **query) -> list[dict]:
    return camp.get("/email/outbox", query=query).json()["data"]["messages"]


def _sent_today(camp) -> int:
    from lambdakit import clock

    today = clock.today()
    o = camp.get("/analytics/overall", query={"start_date": today, "end_date": today}).json()["data"]
    return int(o["summary"]["total_emails_sent"])


@pytest.mark.parametrize("fault", PRESIGN_FAULTS)
def test_attachment_upload_form_presign_failure(camp, fault):
    with s3_fault("presign", fault) as f:
        r = camp.post("/attachments", json={"filename": "terms.pdf", "type": "application/pdf"})
    assert f.fired == 1
    check_error("campaigns", r, fault)
    r = camp.post("/attachments", json={"filename": "terms.pdf", "type": "application/pdf"})
    assert r.status == 201 and r.json()["data"]["upload"]["url"], r.text


@pytest.mark.parametrize("op,fault", [("HeadObject", f) for f in UPLOAD_FAULTS]
                         + [("GetObject", f) for f in ("SlowDown", "ReadTimeoutError", "StreamCut", "AccessDenied")])
def test_send_with_an_upload_s3_failure_sends_nothing(camp, campaigns_app, op, fault):
    aid = _stored_upload(camp, campaigns_app)
    with s3_fault(op, fault) as f:
        r = camp.post("/email/send", json=_send_body(aid))
    assert f.fired == 1
    check_error("campaigns", r, fault)
    assert _outbox(camp, to="s3fault@example.com") == [] and _sent_today(camp) == 0
    r = camp.post("/email/send", json=_send_body(aid))
    assert r.status == 200 and r.json()["data"]["status"] in ("sent", "delivered"), r.text
    box = _outbox(camp, to="s3fault@example.com")
    assert len(box) == 1 and box[0]["attachments"] == [{"filename": "terms.pdf", "type": "application/pdf",
                                                         "size": len(PDF)}]
    assert _sent_today(camp) == 1


@pytest.mark.parametrize("fault", ["SlowDown", "EndpointConnectionError", "AccessDenied"])
def test_bulk_with_an_upload_head_failure_queues_nothing(camp, campaigns_app, pipe, fault):
    aid = _stored_upload(camp, campaigns_app)
    body = {"recipients": [{"to": f"b{i}@example.com"} for i in range(3)], "subject": "Terms", "text": "t",
            "provider": SANDBOX, "attachments": [{"attachment_id": aid}]}
    with s3_fault("HeadObject", fault) as f:
        r = camp.post("/email/bulk", json=body)
    assert f.fired == 1
    check_error("campaigns", r, fault)
    assert pipe.queue_depth("CAMPAIGNS_SEND_QUEUE_URL") == 0
    r = camp.post("/email/bulk", json=body)
    assert r.status == 202, r.text
    pipe.send_all()
    assert len(_outbox(camp, bulk_id=r.json()["data"]["bulk_id"])) == 3


@pytest.mark.parametrize("fault", ["SlowDown", "StreamCut"])
def test_bulk_batch_whose_attachment_read_fails_is_redelivered_not_failed(camp, campaigns_app, pipe, fault):
    """The worker reads the upload when composing a batch: a transient S3 failure hands the batch
    back to the queue (batchItemFailures); no recipient is failed or sent, no progress counted;
    the redelivery sends every recipient once."""
    from tests.campaigns.conftest import _queue_url

    aid = _stored_upload(camp, campaigns_app)
    r = camp.post("/email/bulk", json={"recipients": [{"to": f"w{i}@example.com"} for i in range(2)],
                                        "subject": "Terms", "text": "t", "provider": SANDBOX,
                                        "attachments": [{"attachment_id": aid}]})
    assert r.status == 202, r.text
    bid = r.json()["data"]["bulk_id"]
    url = _queue_url("CAMPAIGNS_SEND_QUEUE_URL")
    msgs = pipe.receive(url)
    assert len(msgs) == 1
    with s3_fault("GetObject", fault) as f:
        failed = pipe.run_batch(url, "SendWorkerFunction", msgs)
    assert f.fired >= 1 and failed == [msgs[0]["MessageId"]]
    st = camp.get(f"/email/bulk/{bid}").json()["data"]
    assert (st["sent"], st["failed"]) == (0, 0) and _outbox(camp, bulk_id=bid) == [], st
    assert pipe.run_batch(url, "SendWorkerFunction", msgs) == []
    st = camp.get(f"/email/bulk/{bid}").json()["data"]
    assert (st["sent"], st["failed"]) == (2, 0), st
    assert len(_outbox(camp, bulk_id=bid)) == 2


# ================================================================ internships
BOUNDARY = "S3FaultBoundary"


def _multipart(data: bytes, filename: str, ctype: str, **fields: str) -> tuple[bytes, dict]:
    body = b"".join(f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n".encode()
                    for k, v in fields.items())
    body += (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\n"
             f"Content-Type: {ctype}\r\n\r\n").encode() + data + f"\r\n--{BOUNDARY}--\r\n".encode()
    return body, {"content-type": f"multipart/form-data; boundary={BOUNDARY}"}


def _files_bucket() -> str:
    from internships.settings import settings

    return settings().files_bucket


def _activity(api, sa, action: str) -> int:
    return api.get("/api/admin/activity-logs", headers=sa.headers, query={"action_type": action}).json()["total"]


@pytest.fixture
def seed(internships_app):
    from tests.internships.admin.conftest import Seed

    return Seed()


# ---------------------------------------------------------------- avatars
def _avatar(api, user) -> dict:
    p = api.get("/api/profile", headers=user.headers).json()["profile"]
    return {"avatar": p.get("avatar_url") or p.get("avatarUrl"),
            "objects": keys(_files_bucket(), f"avatars/{user.id}/")}


def _upload_avatar(api, user):
    body, h = _multipart(PNG, "me.png", "image/png")
    return api.post("/api/profile/avatar", headers={**user.headers, **h}, body=body)


@pytest.mark.parametrize("fault", UPLOAD_FAULTS)
def test_avatar_upload_failure_keeps_the_old_avatar(api, intern_users, fault):
    st = intern_users.student()
    assert _upload_avatar(api, st).status == 200
    before = _avatar(api, st)
    assert before["avatar"] and len(before["objects"]) == 1
    with s3_fault("PutObject", fault) as f:
        r = _upload_avatar(api, st)
    assert f.fired == 1
    check_error("internships", r, fault)
    assert _avatar(api, st) == before
    r = _upload_avatar(api, st)
    assert r.status == 200, r.text
    after = _avatar(api, st)
    assert after["avatar"] == r.json()["avatarUrl"] != before["avatar"] and len(after["objects"]) == 1


@pytest.mark.parametrize("fault", ["ProvisionedThroughputExceededException", "InternalServerError"])
def test_avatar_record_failure_after_upload_deletes_the_new_object(api, intern_users, fault):
    st = intern_users.student()
    assert _upload_avatar(api, st).status == 200
    before = _avatar(api, st)
    with inject("UpdateItem", fault, item=lambda t, pk, sk: pk == f"USER#{st.id}") as f:
        r = _upload_avatar(api, st)
    assert f.fired == 1
    assert r.status == (503 if fault.startswith("Provisioned") else 500), r.text
    assert list(r.json()) == ["error"] and "Traceback" not in r.text
    assert _avatar(api, st) == before  # the new object is gone, the old one still served


@pytest.mark.parametrize("fault", PRESIGN_FAULTS)
def test_avatar_redirect_presign_failure(api, intern_users, fault):
    st = intern_users.student()
    assert _upload_avatar(api, st).status == 200
    with s3_fault("presign", fault) as f:
        r = api.get(f"/api/avatars/{st.id}")
    assert f.fired == 1
    check_error("internships", r, fault)
    assert "location" not in r.headers
    assert api.get(f"/api/avatars/{st.id}").status == 302


# ---------------------------------------------------------------- admin resources
PDF_FILE = b"%PDF-1.4\n%%EOF"


def _upload_resource(api, sa):
    body, h = _multipart(PDF_FILE, "week 1.pdf", "application/pdf", resource_type="document")
    return api.post("/api/admin/resources/upload", headers={**sa.headers, **h}, body=body)


@pytest.mark.parametrize("op,fault", [("PutObject", f) for f in UPLOAD_FAULTS] + [("presign", f) for f in PRESIGN_FAULTS])
def test_resource_upload_failure_stores_and_records_nothing(api, sa, op, fault):
    with s3_fault(op, fault) as f:
        r = _upload_resource(api, sa)
    assert f.fired == 1
    check_error("internships", r, fault)
    assert keys(_files_bucket(), "resources/") == [] and _activity(api, sa, "resource.upload") == 0
    r = _upload_resource(api, sa)
    assert r.status == 201, r.text
    assert keys(_files_bucket(), "resources/") == [r.json()["file_key"]] and _activity(api, sa, "resource.upload") == 1


@pytest.mark.parametrize("fault", PRESIGN_FAULTS)
def test_resource_sign_presign_failure_records_nothing(api, sa, fault):
    body = {"filename": "slides.pdf", "content_type": "application/pdf"}
    with s3_fault("presign", fault) as f:
        r = api.post("/api/admin/resources/sign", headers=sa.headers, json=body)
    assert f.fired == 1
    check_error("internships", r, fault)
    assert _activity(api, sa, "resource.sign") == 0
    r = api.post("/api/admin/resources/sign", headers=sa.headers, json=body)
    assert r.status == 200 and _activity(api, sa, "resource.sign") == 1


@pytest.mark.parametrize("fault", PRESIGN_FAULTS)
def test_resource_download_links_presign_failure(api, sa, seed, intern_users, fault):
    """The admin's resource detail and the student's resources page sign a link per file."""
    dom = seed.domain()
    st = intern_users.student()
    e = seed.enrollment(st, dom, status="active")
    key = _upload_resource(api, sa).json()["file_key"]
    r = api.post("/api/admin/resources", headers=sa.headers,
                 json={"domain_id": dom["id"], "week": 1, "title": "Slides", "resource_type": "document",
                       "file_key": key})
    assert r.status == 201, r.text
    rid = r.json()["resource"]["id"]
    with s3_fault("presign", fault) as f:
        r1 = api.get(f"/api/admin/resources/{rid}", headers=sa.headers)
        r2 = api.get(f"/api/resources/{e['id']}", headers=st.headers)
    assert f.fired == 2
    check_error("internships", r1, fault)
    check_error("internships", r2, fault)
    assert api.get(f"/api/admin/resources/{rid}", headers=sa.headers).json()["resource"]["download_url"]


# ---------------------------------------------------------------- certificates and invoices
@pytest.mark.parametrize("fault", ["SlowDown", "ReadTimeoutError", "StreamCut", "AccessDenied"])
def test_certificate_download_with_an_unreadable_stored_pdf_serves_a_rendering(api, seed, intern_users, fault):
    """A read with a fallback: the stored copy cannot be read, the PDF is rendered again and served
    (200), and not stored over the copy (which may well be intact): ``pdf_key`` and the object stay."""
    from lambdakit import aws

    st = intern_users.student()
    e = seed.enrollment(st, seed.domain(), status="completed")
    c = seed.certificate(e, pdf_key="certificates/stored.pdf")
    aws.client("s3").put_object(Bucket=_files_bucket(), Key="certificates/stored.pdf", Body=b"%PDF-1.4 stored")
    with s3_fault("GetObject", fault) as f:
        r = api.get(f"/api/certificates/{c['certificate_id']}/download", headers=st.headers)
    assert f.fired == 1
    assert r.status == 200 and r.body.startswith(b"%PDF") and r.body != b"%PDF-1.4 stored", r.status
    assert keys(_files_bucket(), "certificates/") == ["certificates/stored.pdf"]
    assert seed.t.get(f"CERT#{c['certificate_id']}", "CERT")["pdf_key"] == "certificates/stored.pdf"
    r = api.get(f"/api/certificates/{c['certificate_id']}/download", headers=st.headers)
    assert r.status == 200 and r.body == b"%PDF-1.4 stored"


@pytest.mark.parametrize("fault", ["SlowDown", "AccessDenied"])
def test_certificate_download_whose_caching_fails_still_serves_and_records_no_key(api, seed, intern_users, fault):
    st = intern_users.student()
    c = seed.certificate(seed.enrollment(st, seed.domain(), status="completed"))
    with s3_fault("PutObject", fault) as f:
        r = api.get(f"/api/certificates/{c['certificate_id']}/download", headers=st.headers)
    assert f.fired == 1
    assert r.status == 200 and r.body.startswith(b"%PDF")
    assert "pdf_key" not in seed.t.get(f"CERT#{c['certificate_id']}", "CERT")
    assert keys(_files_bucket(), "certificates/") == []


def _queued(api, sa) -> int:
    return int(api.get("/api/admin/email-queue", headers=sa.headers).json()["total"])


@pytest.mark.parametrize("fault", UPLOAD_FAULTS)
def test_invoice_send_whose_pdf_cannot_be_stored_queues_nothing(api, sa, seed, intern_users, fault):
    st = intern_users.student()
    inv = seed.invoice(seed.enrollment(st, seed.domain()), pdf=None)
    queued = _queued(api, sa)
    with s3_fault("PutObject", fault) as f:
        r = api.post(f"/api/admin/invoices/{inv['id']}/send", headers=sa.headers)
    assert f.fired == 1
    check_error("internships", r, fault)
    item = seed.t.get(f"INVOICE#{inv['id']}", "INVOICE")
    assert "pdf_key" not in item and not item.get("sent_at") and not item.get("email_id"), item
    assert _queued(api, sa) == queued and keys(_files_bucket(), "invoices/") == []
    assert _activity(api, sa, "invoice.send") == 0
    r = api.post(f"/api/admin/invoices/{inv['id']}/send", headers=sa.headers)
    assert r.status == 202, r.text
    assert _queued(api, sa) == queued + 1 and keys(_files_bucket(), "invoices/") == [f"invoices/{inv['id']}.pdf"]


# ---------------------------------------------------------------- exports
@pytest.fixture
def export_rows(seed, intern_users, monkeypatch):
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("INTERNSHIPS_EXPORT_DIRECT_MAX_ROWS", "2")
    reset_settings()
    dom = seed.domain()
    for _ in range(4):
        seed.enrollment(intern_users.student(), dom)
    yield
    monkeypatch.delenv("INTERNSHIPS_EXPORT_DIRECT_MAX_ROWS")
    reset_settings()


@pytest.mark.parametrize("op,fault", [("CreateMultipartUpload", "SlowDown"), ("UploadPart", "InternalError"),
                                      ("UploadPart", "EndpointConnectionError"),
                                      ("CompleteMultipartUpload", "ServiceUnavailable"),
                                      ("CompleteMultipartUpload", "AccessDenied"), ("presign", "NoCredentialsError"),
                                      ("presign", "CredentialRetrievalError")])
def test_export_to_s3_failure_records_no_export(api, sa, export_rows, op, fault):
    body = {"entity": "enrollments", "filters": {}}
    with s3_fault(op, fault) as f:
        r = api.post("/api/admin/export", headers=sa.headers, json=body)
    assert f.fired == 1
    check_error("internships", r, fault)
    assert _activity(api, sa, "export.create") == 0
    # a failed multipart upload is aborted: no object; after a presign failure the complete file
    # stays under a fresh key nobody was given, and exports/ expires after 7 days
    assert keys(_files_bucket(), "exports/") == [] or op == "presign"
    r = api.post("/api/admin/export", headers=sa.headers, json=body)
    assert r.status == 200 and r.json()["mode"] == "s3" and r.json()["rows"] == 4, r.text
    assert _activity(api, sa, "export.create") == 1


# ---------------------------------------------------------------- the mail worker's attachments
@pytest.mark.parametrize("fault", ["SlowDown", "ReadTimeoutError", "StreamCut"])
def test_mail_attachment_read_failure_is_retried_not_failed(internships_app, fault):
    """The worker reads an email's attachments from S3: a transient failure puts the email back to
    pending with backoff, without using an attempt (as an SES throttle does); it is never failed
    for it, and the next run sends it once."""
    from internships.mail import outbox
    from internships.mail import repository as mrepo
    from internships.mail import service as mail
    from lambdakit import aws

    aws.client("s3").put_object(Bucket=_files_bucket(), Key="invoices/mail.pdf", Body=b"%PDF-1.4 mail")
    eid = outbox.enqueue("invoice", "student@example.com", {"name": "A", "invoiceNumber": "INV/1", "amount": 1},
                         attachments=[{"filename": "i.pdf", "content_type": "application/pdf",
                                       "s3_key": "invoices/mail.pdf"}])
    with s3_fault("GetObject", fault) as f:
        assert mail.process_email(eid) == "retry"
    assert f.fired == 1
    e = mrepo.get_email(eid)
    assert (e["status"], int(e.get("attempts", 0)), int(e.get("throttles", 0))) == ("pending", 0, 1), e
    mrepo.table().update(*mrepo.email_key(eid), set={"next_attempt_at": "2000-01-01T00:00:00.000Z"})
    assert mail.process_email(eid) == "sent"
    assert mrepo.get_email(eid)["status"] == "sent"


@pytest.mark.parametrize("fault", ["SlowDown", "AccessDenied"])
def test_certificate_issue_whose_pdf_cannot_be_stored_still_completes(api, sa, seed, intern_users, fault):
    """The order reversed on purpose: completing the enrollment and issuing its certificate is the
    committed change; storing its PDF afterwards is best effort (an error answer would make the
    admin redo a change that happened). No ``pdf_key`` is recorded; the first download renders and
    stores it."""
    st = intern_users.student()
    e = seed.enrollment(st, seed.domain(), status="active")
    with s3_fault("PutObject", fault) as f:
        r = api.post(f"/api/admin/enrollments/{e['id']}/approve", headers=sa.headers, json={"force": True})
    assert f.fired == 1
    assert r.status in (200, 201), r.text
    cid = r.json()["certificate"]["certificateId"]
    assert "pdf_key" not in seed.t.get(f"CERT#{cid}", "CERT") and keys(_files_bucket(), "certificates/") == []
    r = api.get(f"/api/certificates/{cid}/download", headers=st.headers)
    assert r.status == 200 and r.body.startswith(b"%PDF")
    assert seed.t.get(f"CERT#{cid}", "CERT")["pdf_key"] == f"certificates/{cid}.pdf"
    assert keys(_files_bucket(), "certificates/") == [f"certificates/{cid}.pdf"]
