"""Campaigns to a real list: suppression, unsubscribe link, A/B subject test, SES feedback."""
from __future__ import annotations

import json
import re

from lambdakit import clock


def _list_with_contacts(camp, n: int, *, extra: list[dict] | None = None) -> tuple[str, list[dict]]:
    lid = camp.post("/lists", json={"name": "Customers", "description": "", "visibility": "private",
                                    "double_opt_in": False}).json()["data"]["id"]
    contacts = []
    for i in range(n):
        r = camp.post("/contacts", json={"email": f"p{i}@example.com", "first_name": f"P{i}", "lists": [lid],
                                         "custom_fields": {"plan": "gold"}})
        assert r.status in (200, 201), r.text
        contacts.append(r.json()["data"])
    for body in extra or []:
        r = camp.post("/contacts", json={**body, "lists": [lid]})
        assert r.status in (200, 201), r.text
        contacts.append(r.json()["data"])
    return lid, contacts


def test_list_campaign_personalises_and_suppresses(new_campaign, camp, pipe):
    lid, contacts = _list_with_contacts(camp, 3)
    camp.put(f"/contacts/{contacts[2]['id']}", json={"status": "unsubscribed"})
    cid = new_campaign(subject="Hi {{first_name}} ({{plan}})", audience={"type": "list", "list_id": lid})
    d = camp.post(f"/campaigns/{cid}/send", json={"confirm": True}).json()["data"]
    assert d["estimated_recipients"] == 2
    pipe.send_all()
    box = camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"]
    assert sorted(m["subject"] for m in box) == ["Hi P0 (gold)", "Hi P1 (gold)"]
    assert camp.get(f"/campaigns/{cid}").json()["data"]["status"] == "sent"


def test_unsubscribe_link_marks_contact_and_emits_event(new_campaign, camp, pipe, receiver):
    camp.post("/webhooks", json={"name": "r", "url": receiver.url, "events": ["contact.unsubscribed"]})
    lid, contacts = _list_with_contacts(camp, 1)
    cid = new_campaign(audience={"type": "list", "list_id": lid})
    camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    pipe.send_all()
    m = camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"][0]
    link = re.sub(r"^https?://[^/]+", "", m["headers"]["List-Unsubscribe"][1:-1])
    assert camp.get(link).status == 200  # issue 30: a GET only shows the confirmation page
    assert camp.get(f"/contacts/{contacts[0]['id']}").json()["data"]["status"] == "active"
    assert camp.post(link, body="confirm=yes", headers={"content-type": "application/x-www-form-urlencoded"}).status == 200  # the page's button
    assert camp.get(f"/contacts/{contacts[0]['id']}").json()["data"]["status"] == "unsubscribed"
    assert camp.post(link, body="confirm=yes", headers={"content-type": "application/x-www-form-urlencoded"}).status == 200  # twice: still one event
    pipe.webhooks_all()
    evs = receiver.events()
    assert [e["event"] for e in evs] == ["contact.unsubscribed"]
    assert evs[0]["data"]["contact_id"] == contacts[0]["id"] and evs[0]["data"]["campaign_id"] == cid
    assert camp.get(f"/campaigns/{cid}").json()["data"]["stats"]["unsubscribed"] == 1
    # a later campaign skips the unsubscribed contact
    cid2 = new_campaign(audience={"type": "list", "list_id": lid})
    camp.post(f"/campaigns/{cid2}/send", json={"confirm": True})
    pipe.send_all()
    assert camp.get("/email/outbox", query={"campaign_id": cid2}).json()["data"]["messages"] == []


def test_ab_subject_test_sends_winner_to_the_rest_by_schedule(new_campaign, camp, pipe, later):
    lid, contacts = _list_with_contacts(camp, 10)
    cid = new_campaign(subject="base", audience={"type": "list", "list_id": lid},
                       ab_test={"test_type": "subject_line", "variations": [{"subject": "A"}, {"subject": "B"}],
                                "test_size": 40, "winner_criteria": "highest_open_rate", "test_duration_hours": 2})
    camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    pipe.send_all()
    box = camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"]
    assert sorted(m["subject"] for m in box) == ["A", "A", "B", "B"]
    d = camp.get(f"/campaigns/{cid}").json()["data"]
    assert d["status"] == "sending" and d["ab_results"]["winner"] is None
    later(60)
    b_mail = [m for m in box if m["subject"] == "B"][0]
    camp.get(re.sub(r"^https?://[^/]+", "", re.search(r'src="([^"]+/t/o/[^"]+)"', b_mail["html"]).group(1)),
             headers={"user-agent": "Mozilla/5.0 (Windows NT 10.0) Chrome/120.0"})
    assert pipe.tick()["decided"] == 0  # not yet due
    clock.set_offset(2 * 3600 + 120)
    assert pipe.tick()["decided"] == 1
    pipe.send_all()
    box = camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"]
    subjects = sorted(m["subject"] for m in box)
    assert len(box) == 10 and subjects.count("B") == 8 and subjects.count("A") == 2
    assert len({m["to"] for m in box}) == 10
    d = camp.get(f"/campaigns/{cid}").json()["data"]
    assert d["status"] == "sent" and d["ab_results"]["winner"] == 1 and d["stats"]["sent"] == 10


def _ses_event(kind: str, tags: dict, detail: dict) -> dict:
    body = {"source": "aws.ses", "detail-type": {"Bounce": "Email Bounced", "Delivery": "Email Delivered",
                                                 "Complaint": "Email Complaint Received"}[kind],
            "detail": {"eventType": kind, "mail": {"messageId": "m-1", "destination": ["p0@example.com"],
                                                   "tags": {k: [v] for k, v in tags.items()}}, **detail}}
    return {"Records": [{"messageId": "1", "receiptHandle": "r", "body": json.dumps(body), "attributes": {},
                         "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
                         "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:feedback", "awsRegion": "us-east-1"}]}


def test_ses_campaign_and_feedback(new_campaign, camp, pipe, receiver):
    import boto3

    camp.post("/webhooks", json={"name": "r", "url": receiver.url, "events": ["email.bounced", "email.delivered"]})
    lid, contacts = _list_with_contacts(camp, 2)
    cid = new_campaign(audience={"type": "list", "list_id": lid},
                       settings={"from_email": "news@example.com", "provider": {"provider": "ses"}})
    camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    pipe.send_all()
    assert boto3.client("ses", region_name="us-east-1").get_send_quota()["SentLast24Hours"] >= 2
    d = camp.get(f"/campaigns/{cid}").json()["data"]
    assert d["status"] == "sent" and d["stats"]["sent"] == 2 and d["stats"]["delivered"] == 0
    c0, c1 = contacts[0]["id"], contacts[1]["id"]
    tags = {"account": "acct-test", "send": f"c-{cid}"}
    for _ in range(2):  # redelivered feedback counts once
        pipe.app.campaigns.invoke_function("FeedbackWorkerFunction", _ses_event(
            "Delivery", {**tags, "rkey": c0}, {"delivery": {"timestamp": clock.now_iso()}}))
        pipe.app.campaigns.invoke_function("FeedbackWorkerFunction", _ses_event(
            "Bounce", {**tags, "rkey": c1}, {"bounce": {"bounceType": "Permanent", "bounceSubType": "General",
                                                        "bouncedRecipients": [{"emailAddress": "p1@example.com"}]}}))
    st = camp.get(f"/campaigns/{cid}").json()["data"]["stats"]
    assert st["delivered"] == 1 and st["bounced"] == 1
    assert camp.get(f"/contacts/{c1}").json()["data"]["status"] == "bounced"
    pipe.webhooks_all()
    assert sorted(e["event"] for e in receiver.events()) == ["email.bounced", "email.delivered"]
