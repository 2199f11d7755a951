"""Issue #17 item 4: CR/LF in header-bound fields is a 422 at the API for every provider, and a
message that cannot be rendered is recorded ``failed`` (never ``claimed``) without poisoning its batch."""
from __future__ import annotations

import boto3
import pytest

EVIL = "News\r\nBcc: victim@example.net"


def _send(camp, provider_name, **over):
    body = {"to": "a@example.com", "subject": "Hi", "html": "<p>x</p>", "from_email": "news@example.com",
            "provider": {"provider": provider_name}, **over}
    return camp.post("/email/send", json=body)


@pytest.mark.parametrize("provider", ["ses", "sandbox"])
@pytest.mark.parametrize("over, field", [
    ({"from_name": EVIL}, "from_name"),
    ({"from_name": "News\nX"}, "from_name"),
    ({"from_name": "News\u2028X"}, "from_name"),
    ({"subject": "Hello\r\nBcc: victim@example.net"}, "subject"),
    ({"provider_from_name": EVIL}, "provider.from_name"),
    ({"reply_to": "a@example.com\r\nBcc: victim@example.net"}, "reply_to"),
])
def test_single_send_refuses_header_injection_with_422(camp, provider, over, field):
    if "provider_from_name" in over:
        over = {"provider": {"provider": provider, "from_name": over["provider_from_name"]}}
    r = _send(camp, provider, **over)
    assert r.status == 422, r.text
    err = r.json()["error"]
    assert err["code"] == "VALIDATION_ERROR" and field in err["details"], err
    assert camp.get("/email/outbox").json()["data"]["messages"] == []


def test_bulk_campaign_and_template_refuse_header_injection(camp):
    r = camp.post("/email/bulk", json={"recipients": [{"to": "a@example.com"}], "subject": "s", "html": "<p>x</p>",
                                       "from_name": EVIL})
    assert r.status == 422 and "from_name" in r.json()["error"]["details"], r.text
    base = {"name": "c", "subject": "s", "content": "<p>x</p>",
            "audience": {"type": "test", "test_emails": ["a@example.com"]}}
    for body, field in [({**base, "settings": {"from_name": EVIL}}, "settings.from_name"),
                        ({**base, "settings": {"provider": {"provider": "sandbox", "from_name": EVIL}}},
                         "settings.provider.from_name"),
                        ({**base, "subject": "a\nb"}, "subject"),
                        ({**base, "ab_test": {"variations": [{"subject": "a\r\nb"}, {"subject": "ok"}], "test_size": 10,
                                              "test_duration_hours": 1}}, "ab_test.variations.0.subject")]:
        r = camp.post("/campaigns", json=body)
        assert r.status == 422 and field in r.json()["error"]["details"], (field, r.text)
    cid = camp.post("/campaigns", json=base).json()["data"]["id"]
    r = camp.put(f"/campaigns/{cid}", json={"settings": {"from_name": EVIL}})
    assert r.status == 422 and "settings.from_name" in r.json()["error"]["details"], r.text
    r = camp.post("/templates", json={"name": "t", "subject": "Hi\r\nBcc: x@example.net", "content": "<p>x</p>"})
    assert r.status == 422 and "subject" in r.json()["error"]["details"], r.text
    tid = camp.post("/templates", json={"name": "t", "subject": "Hi", "content": "<p>x</p>"}).json()["data"]["id"]
    r = camp.put(f"/templates/{tid}", json={"subject": "Hi\nX"})
    assert r.status == 422 and "subject" in r.json()["error"]["details"], r.text


def _recipient(send_id: str, email: str) -> dict:
    from campaigns.sending import pipeline
    from campaigns.sending import repository as repo

    return repo.get_recipient(send_id, pipeline.Recipient(email).rkey) or {}


def _poison_bulk(bulk_id: str, provider: str) -> None:
    from campaigns.sending import repository as repo

    repo.table().update(f"BULK#{bulk_id}", "META", set={"provider": {
        "name": provider, "from_email": "news@example.com", "from_name": EVIL, "reply_to": None}})


@pytest.mark.parametrize("provider", ["ses", "sandbox"])
def test_worker_records_unrenderable_recipients_failed_and_keeps_the_batch(camp, pipe, provider):
    """A bulk batch already on the queue whose stored sender name holds CR/LF (written before the
    API refused it) sits in one SQS batch with a healthy one: the bad one's recipients end
    ``failed`` with a reason, the good one is delivered, and no message is retried."""
    bad = camp.post("/email/bulk", json={"recipients": [{"to": "x1@example.com"}, {"to": "x2@example.com"}],
                                         "subject": "s", "html": "<p>x</p>", "from_email": "news@example.com",
                                         "provider": {"provider": provider}}).json()["data"]["bulk_id"]
    good = camp.post("/email/bulk", json={"recipients": [{"to": "y1@example.com"}], "subject": "s",
                                          "html": "<p>x</p>", "from_email": "news@example.com",
                                          "provider": {"provider": provider}}).json()["data"]["bulk_id"]
    _poison_bulk(bad, provider)
    import os

    url = os.environ["CAMPAIGNS_SEND_QUEUE_URL"]
    msgs = pipe.receive(url, 10)
    assert len(msgs) == 2
    failed = pipe.run_batch(url, "SendWorkerFunction", msgs)
    assert failed == []  # nothing goes back to the queue (and on to the DLQ)
    for e in ("x1@example.com", "x2@example.com"):
        rec = _recipient(f"b-{bad}", e)
        assert rec["status"] == "failed" and "from_name" in rec["error"], rec
    assert _recipient(f"b-{good}", "y1@example.com")["status"] in ("sent", "delivered")
    st = camp.get(f"/email/bulk/{bad}").json()["data"]
    assert st["status"] == "completed" and st["failed"] == 2 and st["sent"] == 0, st
    assert pipe.queue_depth("CAMPAIGNS_SEND_QUEUE_URL") == 0
    if provider == "sandbox":
        outbox = camp.get("/email/outbox").json()["data"]["messages"]
        assert [m["to"] for m in outbox] == ["y1@example.com"]


def test_unrenderable_message_is_refused_before_ses_sees_it(campaigns_app):
    """``message.check`` and the SES adapter both refuse a header that the email package cannot
    build (defence in depth under the API's validation)."""
    from campaigns.sending import ses
    from campaigns.sending.message import OutboundMessage, Unrenderable

    msg = OutboundMessage(account_id="a", to="t@example.com", subject="s", html="", text="x",
                          from_email="news@example.com", from_name=EVIL)
    with pytest.raises(Unrenderable):
        msg.check()
    with pytest.raises(Unrenderable):
        ses.send(msg)
    stats = boto3.client("ses", region_name="us-east-1").get_send_statistics()["SendDataPoints"]
    assert sum(p.get("DeliveryAttempts", 0) for p in stats) == 0


def test_stored_campaign_with_header_injection_cannot_be_scheduled(camp):
    """A draft stored before the API refused CR/LF is refused at send time (422), not scheduled."""
    cid = camp.post("/campaigns", json={"name": "c", "subject": "s", "content": "<p>x</p>",
                                        "audience": {"type": "test", "test_emails": ["a@example.com"]},
                                        "settings": {"from_email": "news@example.com"}}).json()["data"]["id"]
    from campaigns.campaign import repository as camp_repo

    camp_repo.update_fields(cid, {"settings": {"from_email": "news@example.com", "from_name": EVIL}},
                            allowed=["draft"])
    r = camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    assert r.status == 422 and "settings.from_name" in r.json()["error"]["details"], r.text
    assert camp.get(f"/campaigns/{cid}").json()["data"]["status"] == "draft"


@pytest.mark.parametrize("provider", ["ses", "sandbox"])
def test_campaign_batch_with_unrenderable_sender_finishes_with_failures(camp, pipe, new_campaign, provider):
    """A campaign already scheduled when its stored sender name held CR/LF: the worker records each
    recipient failed, the batch is applied once and the campaign ends ``sent`` (no retry, no DLQ)."""
    cid = new_campaign(settings={"from_email": "news@example.com", "provider": {"provider": provider}})
    assert camp.post(f"/campaigns/{cid}/send", json={"confirm": True}).status == 200
    from campaigns.campaign import repository as camp_repo

    camp_repo.update_fields(cid, {"settings": {"from_email": "news@example.com", "from_name": EVIL,
                                               "provider": {"provider": provider}}}, allowed=["scheduled"])
    pipe.send_all()
    pipe.tick()
    d = camp.get(f"/campaigns/{cid}").json()["data"]
    assert d["status"] == "sent" and d["stats"]["failed"] == 5 and d["stats"]["sent"] == 0, d
    rec = _recipient(f"c-{cid}", "r0@example.com")
    assert rec["status"] == "failed" and rec["error"].startswith("invalid_header"), rec
    assert pipe.queue_depth("CAMPAIGNS_SEND_QUEUE_URL") == 0
