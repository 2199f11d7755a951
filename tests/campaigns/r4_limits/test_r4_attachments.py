"""Issue #18 item 8: attachments at the spec's sizes through a presigned upload, referenced by id
in /email/send and /email/bulk; the real limits (inline, per upload, SES's 40 MB) enforced."""
from __future__ import annotations

import base64
import email
import hashlib

import pytest
import requests

from tests.campaigns.conftest import OTHER_ACCOUNT

SANDBOX = {"provider": "sandbox", "from_email": "news@example.com"}


def _upload(camp, data: bytes, filename="report.pdf", ctype="application/pdf") -> dict:
    r = camp.post("/attachments", json={"filename": filename, "type": ctype})
    assert r.status == 201, r.text
    d = r.json()["data"]
    assert d["upload"]["method"] == "POST" and d["max_bytes"] == d["upload"]["max_bytes"]
    assert d["upload"]["fields"]["key"] == f"attachments/acct-test/{d['attachment_id']}"
    resp = requests.post(d["upload"]["url"], data=d["upload"]["fields"], files={"file": (filename, data)})
    assert resp.status_code in (200, 201, 204), resp.text
    return d


def _ses_raw_messages() -> list[bytes]:
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.ses.models import ses_backends

    return [m.raw_data.encode() if isinstance(m.raw_data, str) else m.raw_data
            for m in ses_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].sent_messages if hasattr(m, "raw_data")]


def test_upload_then_send_by_reference_reads_the_file_into_the_message(camp):
    data = bytes(range(256)) * (12 * 1024 * 1024 // 256)  # 12 MiB: far beyond what a request carries
    up = _upload(camp, data)
    r = camp.post("/email/send", json={"to": "a@example.com", "subject": "Report", "text": "attached",
                                        "provider": SANDBOX, "attachments": [{"attachment_id": up["attachment_id"]}]})
    assert r.status == 200, r.text
    m = camp.get("/email/outbox", query={"to": "a@example.com"}).json()["data"]["messages"][0]
    assert m["attachments"] == [{"filename": "report.pdf", "type": "application/pdf", "size": len(data)}]

    # through SES the bytes are in the raw MIME message (read from S3 when composing)
    r = camp.post("/email/send", json={"to": "b@example.com", "subject": "Report", "text": "attached",
                                        "provider": {"provider": "ses", "from_email": "news@example.com"},
                                        "attachments": [{"attachment_id": up["attachment_id"],
                                                         "filename": "renamed.pdf"},
                                                        {"filename": "small.txt", "type": "text/plain",
                                                         "content": base64.b64encode(b"inline ok").decode()}]})
    assert r.status == 200 and r.json()["data"]["status"] == "sent", r.text
    raw = _ses_raw_messages()[-1]
    msg = email.message_from_bytes(raw)
    parts = {p.get_filename(): p.get_payload(decode=True) for p in msg.walk() if p.get_filename()}
    assert hashlib.sha256(parts["renamed.pdf"]).digest() == hashlib.sha256(data).digest()
    assert parts["small.txt"] == b"inline ok"


def test_bulk_send_with_uploaded_attachment(camp, pipe):
    up = _upload(camp, b"%PDF-1.7 bulk" * 1000, filename="terms.pdf")
    r = camp.post("/email/bulk", json={"recipients": [{"to": f"r{i}@example.com"} for i in range(3)],
                                        "subject": "Terms", "text": "see attached", "provider": SANDBOX,
                                        "attachments": [{"attachment_id": up["attachment_id"]}]})
    assert r.status == 202, r.text
    pipe.send_all()
    box = camp.get("/email/outbox", query={"bulk_id": r.json()["data"]["bulk_id"]}).json()["data"]["messages"]
    assert len(box) == 3
    assert all(m["attachments"] == [{"filename": "terms.pdf", "type": "application/pdf", "size": 13000}] for m in box)
    # inline content is not accepted for bulk: it would have to live in the bulk record
    r = camp.post("/email/bulk", json={"recipients": [{"to": "x@example.com"}], "subject": "s", "text": "t",
                                        "attachments": [{"filename": "a.txt", "content": "aGk="}]})
    assert r.status == 422


def test_bulk_whose_upload_expired_fails_its_recipients_instead_of_sending_without_it(camp, pipe, campaigns_app):
    import boto3

    up = _upload(camp, b"data", filename="gone.bin", ctype="application/octet-stream")
    r = camp.post("/email/bulk", json={"recipients": [{"to": "late@example.com"}], "subject": "s", "text": "t",
                                        "provider": SANDBOX, "attachments": [{"attachment_id": up["attachment_id"]}]})
    bucket = campaigns_app.envs["campaigns"].refs["FilesBucket"]
    boto3.client("s3").delete_object(Bucket=bucket, Key=up["upload"]["fields"]["key"])  # the lifecycle rule
    pipe.send_all()
    st = camp.get(f"/email/bulk/{r.json()['data']['bulk_id']}").json()["data"]
    assert st["failed"] == 1 and st["sent"] == 0
    assert camp.get("/email/outbox", query={"to": "late@example.com"}).json()["data"]["messages"] == []


def test_another_accounts_or_unknown_attachment_is_refused(camp, make_key, campaigns_app):
    up = _upload(camp, b"secret")
    other = {"Authorization": f"Bearer {make_key(account_id=OTHER_ACCOUNT)}"}
    body = {"to": "a@example.com", "subject": "s", "text": "t", "provider": SANDBOX,
            "attachments": [{"attachment_id": up["attachment_id"]}]}
    r = campaigns_app.campaigns.post("/email/send", json=body, headers=other)
    assert r.status == 422, r.text
    assert r.json()["error"]["code"] == "VALIDATION_ERROR"
    assert "attachments.0.attachment_id" in r.json()["error"]["details"]
    r = camp.post("/email/send", json={**body, "attachments": [{"attachment_id": "../acct-other/x"}]})
    assert r.status == 422
    r = camp.post("/email/send", json={**body, "attachments": [{"attachment_id": "0" * 26}]})
    assert r.status == 422 and "attachments.0.attachment_id" in r.json()["error"]["details"]
    assert camp.get("/email/outbox").json()["data"]["messages"] == []


def test_size_limits_are_the_real_ones(camp, monkeypatch):
    from campaigns.attachments import limits

    # inline: at most 3,000,000 bytes decoded (4 MB of base64 fits Lambda's 6 MB event)
    assert (limits.INLINE_MAX_TOTAL_BYTES + 2) // 3 * 4 < 6 * 1024 * 1024 - 1_500_000
    big = base64.b64encode(b"x" * (limits.INLINE_MAX_TOTAL_BYTES + 1)).decode()
    r = camp.post("/email/send", json={"to": "a@example.com", "subject": "s", "text": "t", "provider": SANDBOX,
                                        "attachments": [{"filename": "a.bin", "content": big}]})
    assert r.status == 422 and "POST /attachments" in r.json()["error"]["details"]["attachments"]
    # SES: the encoded message at most 40 MB: two 16 MB uploads (≈ 44 MB encoded) are refused
    monkeypatch.setattr(limits, "UPLOAD_MAX_BYTES", 17_000_000)
    ups = [_upload(camp, b"y" * 16_000_000, filename=f"f{i}.bin") for i in range(2)]
    r = camp.post("/email/send", json={"to": "a@example.com", "subject": "s", "text": "t", "provider": SANDBOX,
                                        "attachments": [{"attachment_id": u["attachment_id"]} for u in ups]})
    assert r.status == 422 and "40000000" in r.json()["error"]["details"]["attachments"], r.text
    # one of them alone fits
    r = camp.post("/email/send", json={"to": "a@example.com", "subject": "s", "text": "t", "provider": SANDBOX,
                                        "attachments": [{"attachment_id": ups[0]["attachment_id"]}]})
    assert r.status == 200, r.text
    # an upload over the per-file limit (presigned form's content-length-range, checked again on send)
    monkeypatch.setattr(limits, "UPLOAD_MAX_BYTES", 1000)
    r = camp.post("/email/send", json={"to": "a@example.com", "subject": "s", "text": "t", "provider": SANDBOX,
                                        "attachments": [{"attachment_id": ups[0]["attachment_id"]}]})
    assert r.status == 422 and "attachments.0.attachment_id" in r.json()["error"]["details"]


def test_recipients_per_message_and_attachment_shape(camp):
    r = camp.post("/email/send", json={"to": "a@example.com", "subject": "s", "text": "t",
                                        "cc": [f"c{i}@example.com" for i in range(25)],
                                        "bcc": [f"b{i}@example.com" for i in range(25)]})
    assert r.status == 422  # 51 addresses: over SES's 50 per message
    for bad in ({"filename": "a.txt"}, {"content": "aGk="}, {"attachment_id": "x", "content": "aGk="}):
        r = camp.post("/email/send", json={"to": "a@example.com", "subject": "s", "text": "t", "attachments": [bad]})
        assert r.status == 422, bad
    r = camp.post("/attachments", json={"filename": "a\r\nb.txt", "type": "text/plain"})
    assert r.status == 422
    r = camp.post("/attachments", json={"filename": "a.txt", "type": "text"})
    assert r.status == 422


@pytest.mark.parametrize("scope_ok", [True, False])
def test_attachments_need_the_send_scope(campaigns_app, make_key, scope_ok):
    key = make_key(scopes=["email:send"] if scope_ok else ["contacts:read"])
    r = campaigns_app.campaigns.post("/attachments", json={"filename": "a.txt", "type": "text/plain"},
                                     headers={"Authorization": f"Bearer {key}"})
    assert r.status == (201 if scope_ok else 403)
