"""/email/send, /email/outbox, idempotency, validation."""
from __future__ import annotations

import base64


def test_send_to_sandbox_is_recorded_in_outbox(camp):
    r = camp.post("/email/send", json={"to": "ann@example.com", "subject": "Hi {{name}}",
                                        "html": "<p>Hello {{name}}</p><a href='https://example.org/x'>x</a>",
                                        "variables": {"name": "Ann"}, "provider": {"provider": "sandbox",
                                                                                   "from_email": "news@example.com",
                                                                                   "from_name": "News"}})
    assert r.status == 200, r.text
    data = r.json()["data"]
    assert data["status"] == "delivered" and data["message_id"].startswith("sandbox-")
    box = camp.get("/email/outbox", query={"to": "ann@example.com"}).json()["data"]["messages"]
    assert len(box) == 1
    m = box[0]
    assert m["subject"] == "Hi Ann" and "Hello Ann" in m["html"] and m["provider"] == "sandbox"
    assert "/t/o/" in m["html"]  # open pixel
    assert "/t/c/" in m["html"] and "https://example.org/x" not in m["html"]  # tracked link
    assert m["from"] == "News <news@example.com>"
    assert set(m) >= {"id", "to", "subject", "html", "text", "headers", "provider", "campaign_id", "sent_at"}


def test_validation_errors_are_422_keyed_by_field(camp):
    r = camp.post("/email/send", json={"to": "not-an-email", "subject": "s", "html": "h"})
    assert r.status == 422
    err = r.json()["error"]
    assert err["code"] == "VALIDATION_ERROR" and "to" in err["details"]
    big = base64.b64encode(b"x" * 3_000_001).decode()  # over the inline limit, under Lambda's 6 MB event
    r = camp.post("/email/send", json={"to": "a@example.com", "subject": "s", "html": "h",
                                        "attachments": [{"filename": "a.bin", "content": big,
                                                         "type": "application/octet-stream"}]})
    assert r.status == 422 and "attachments" in r.json()["error"]["details"]


def test_attachments_cc_bcc_accepted(camp):
    r = camp.post("/email/send", json={"to": "b@example.com", "cc": ["c@example.com"], "bcc": ["d@example.com"],
                                        "subject": "Doc", "text": "see attached",
                                        "attachments": [{"filename": "a.txt", "content": base64.b64encode(b"hi").decode(),
                                                         "type": "text/plain"}]})
    assert r.status == 200, r.text
    m = camp.get("/email/outbox").json()["data"]["messages"][0]
    assert m["cc"] == ["c@example.com"] and m["bcc"] == ["d@example.com"]
    assert m["attachments"] == [{"filename": "a.txt", "type": "text/plain", "size": 2}]


def test_idempotency_key_returns_first_response_and_sends_once(camp):
    body = {"to": "idem@example.com", "subject": "once", "text": "once"}
    h = {"Idempotency-Key": "key-1"}
    r1 = camp.post("/email/send", json=body, headers=h)
    r2 = camp.post("/email/send", json=body, headers=h)
    assert r1.status == r2.status == 200
    assert r1.json()["data"] == r2.json()["data"]
    assert len(camp.get("/email/outbox", query={"to": "idem@example.com"}).json()["data"]["messages"]) == 1
    r3 = camp.post("/email/send", json={**body, "subject": "other"}, headers=h)
    assert r3.status == 422


def test_scope_email_send_required(campaigns_app, make_key):
    key = make_key(scopes=["campaigns:read"])
    r = campaigns_app.campaigns.post("/email/send", json={"to": "a@example.com", "subject": "s", "text": "t"},
                                     headers={"Authorization": f"Bearer {key}"})
    assert r.status == 403
    assert campaigns_app.campaigns.get("/email/outbox").status == 401


def test_ses_provider_sends_through_emulator(camp):
    import boto3

    r = camp.post("/email/send", json={"to": "x@example.net", "subject": "s", "text": "t",
                                        "provider": {"provider": "ses", "from_email": "news@example.com"}})
    assert r.status == 200, r.text
    assert r.json()["data"]["status"] == "sent"
    quota = boto3.client("ses", region_name="us-east-1").get_send_quota()
    assert quota["SentLast24Hours"] >= 1
    assert camp.get("/email/outbox").json()["data"]["messages"] == []
