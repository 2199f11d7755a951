"""Webhook delivery bodies holding a contact's personal data are redacted by the contact's
erasure (round-1 gap); other people's deliveries are untouched."""
from __future__ import annotations

import json


def _bodies(webhook_id: str) -> list[dict]:
    from campaigns.webhooks import repository as repo

    items, _ = repo.list_deliveries(webhook_id, 100, None)
    return [dict(i, body_json=json.loads(i["body"])) for i in items]


def test_erasure_redacts_delivery_bodies(camp, receiver, pipe):
    hook = camp.post("/webhooks", json={"name": "h", "url": receiver.url, "events": [
        "contact.subscribed", "contact.unsubscribed", "email.delivered"]}).json()["data"]["id"]
    ann = camp.post("/contacts", json={"email": "ann@example.com", "first_name": "Ann"}).json()["data"]["id"]
    camp.post("/contacts", json={"email": "bob@example.com"})
    r = camp.post("/email/send", json={"to": "ann@example.com", "subject": "s", "text": "t",
                                       "provider": {"provider": "sandbox"}, "from_email": "news@example.com"})
    assert r.status == 200
    before = _bodies(hook)
    about_ann = [d for d in before if "ann@example.com" in d["body"]]
    assert {d["event"] for d in about_ann} == {"contact.subscribed", "email.delivered"}

    assert camp.delete(f"/contacts/{ann}").status == 200
    after = {d["id"]: d for d in _bodies(hook)}
    assert not any("ann@example.com" in d["body"] for d in after.values())
    for d in about_ann:
        red = after[d["id"]]
        assert red["body_json"] == {"event": d["event"], "timestamp": d["body_json"]["timestamp"],
                                    "data": {"erased": True}}
        assert red["erased_at"]
    assert any("bob@example.com" in d["body"] for d in after.values())

    # a pending delivery goes out redacted, still signed with the same webhook-id
    pipe.webhooks_all()
    assert receiver.requests and not any(b"ann@example.com" in q["body"] for q in receiver.requests)
