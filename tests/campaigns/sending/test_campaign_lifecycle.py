"""Campaign CRUD, lifecycle (draft → scheduled → sending → sent / cancelled), pipeline end to end
with a test audience, and exactly-once behaviour under redelivery."""
from __future__ import annotations

import json

from lambdakit import clock


def test_crud_list_and_partial_update(new_campaign, camp):
    cid = new_campaign()
    new_campaign(name="Autumn")
    r = camp.get("/campaigns", query={"limit": 1})
    data = r.json()["data"]
    assert data["pagination"] == {"page": 1, "limit": 1, "total": 2, "pages": 2}
    assert set(data["campaigns"][0]) == {"id", "name", "status", "subject", "sent_at", "stats", "created_at"}
    assert camp.get("/campaigns", query={"search": "autu"}).json()["data"]["pagination"]["total"] == 1
    assert camp.get("/campaigns", query={"status": "sent"}).json()["data"]["campaigns"] == []
    r = camp.put(f"/campaigns/{cid}", json={"name": "Renamed"})
    assert r.status == 200 and r.json()["data"]["name"] == "Renamed" and r.json()["data"]["subject"].startswith("Hello")
    d = camp.get(f"/campaigns/{cid}").json()["data"]
    assert d["stats"] == {**d["stats"], "open_rate": 0, "click_rate": 0, "bounce_rate": 0}
    assert camp.get("/campaigns/nope").status == 404


def test_send_needs_confirm_and_invalid_transitions_are_409(new_campaign, camp):
    cid = new_campaign()
    assert camp.post(f"/campaigns/{cid}/send", json={}).status == 422
    assert camp.post(f"/campaigns/{cid}/send", json={"confirm": False}).status == 422
    r = camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    assert r.status == 200, r.text
    d = r.json()["data"]
    assert d["status"] == "scheduled" and d["estimated_recipients"] == 5 and d["scheduled_for"]
    r = camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    assert r.status == 409
    assert r.json()["error"]["details"] == {"expected_state": "draft", "actual_state": "scheduled"}
    assert camp.put(f"/campaigns/{cid}", json={"name": "x"}).status == 200  # scheduled is editable
    assert camp.post(f"/campaigns/{cid}/cancel").status == 200
    r = camp.post(f"/campaigns/{cid}/cancel")
    assert r.status == 409 and r.json()["error"]["details"]["actual_state"] == "cancelled"
    assert camp.put(f"/campaigns/{cid}", json={"name": "y"}).status == 409


def test_immediate_send_reaches_sent_with_rendered_tracked_mail(new_campaign, camp, pipe):
    cid = new_campaign()
    assert camp.post(f"/campaigns/{cid}/send", json={"confirm": True}).status == 200
    pipe.send_all()
    d = camp.get(f"/campaigns/{cid}").json()["data"]
    assert d["status"] == "sent" and d["sent_at"]
    assert d["stats"]["sent"] == 5 and d["stats"]["delivered"] == 5
    box = camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"]
    assert sorted(m["to"] for m in box) == [f"r{i}@example.com" for i in range(5)]
    m = [m for m in box if m["to"] == "r3@example.com"][0]
    assert m["subject"] == "Hello r3@example.com"
    assert m["headers"]["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert m["headers"]["List-Unsubscribe"].startswith("<http://127.0.0.1:3001/unsubscribe/")
    assert "http://127.0.0.1:3001/t/o/" in m["html"] and "/t/c/" in m["html"]
    assert m["headers"]["List-Unsubscribe"][1:-1] in m["html"]  # {{unsubscribe_url}} in the body too
    # nothing left; a redelivered batch or a second tick changes nothing
    pipe.tick()
    assert camp.get(f"/campaigns/{cid}").json()["data"]["stats"]["sent"] == 5


def test_scheduled_campaign_waits_for_its_time_then_dispatcher_sends(new_campaign, camp, pipe):
    import datetime as dt

    when = clock.iso(clock.now() + dt.timedelta(hours=1))
    cid = new_campaign(schedule={"type": "scheduled", "date": when})
    d = camp.post(f"/campaigns/{cid}/send", json={"confirm": True}).json()["data"]
    assert d["scheduled_for"] == when and d["status"] == "scheduled"
    pipe.tick()
    pipe.send_all()
    assert camp.get(f"/campaigns/{cid}").json()["data"]["status"] == "scheduled"
    clock.set_offset(3700)
    try:
        assert pipe.tick()["started"] == 1
        pipe.send_all()
    finally:
        clock.set_offset(0)
    assert camp.get(f"/campaigns/{cid}").json()["data"]["status"] == "sent"


def test_send_test_only_goes_to_test_emails_and_keeps_status(new_campaign, camp, pipe):
    cid = new_campaign()
    r = camp.post(f"/campaigns/{cid}/send", json={"send_test": True, "test_emails": ["qa@example.com"]})
    assert r.status == 200, r.text
    assert r.json()["data"]["status"] == "draft"
    box = camp.get("/email/outbox").json()["data"]["messages"]
    assert [m["to"] for m in box] == ["qa@example.com"] and box[0]["subject"].startswith("[Test] ")
    assert camp.get(f"/campaigns/{cid}").json()["data"]["stats"]["sent"] == 0


def _batch_messages(pipe):
    import os

    url = os.environ["CAMPAIGNS_SEND_QUEUE_URL"]
    out = []
    for _ in range(20):
        msgs = pipe.receive(url, 10)
        if not msgs:
            break
        for m in msgs:
            body = json.loads(m["Body"])
            if body["type"] == "batch":
                out.append(m)
            else:
                pipe.run_batch(url, "SendWorkerFunction", [m])
    return url, out


def test_worker_crash_mid_batch_then_redelivery_sends_each_recipient_once(new_campaign, camp, pipe, monkeypatch):
    cid = new_campaign(audience={"type": "test", "test_emails": [f"c{i}@example.com" for i in range(6)]})
    camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    url, batches = _batch_messages(pipe)
    assert len(batches) == 1
    from campaigns.sending import providers

    real = providers.send
    calls = {"n": 0}

    def dying(provider, msg, **kw):
        calls["n"] += 1
        if calls["n"] == 4:
            raise SystemExit("worker killed")  # the process dies after 3 of 6 sends
        return real(provider, msg, **kw)

    monkeypatch.setattr(providers, "send", dying)
    try:
        pipe.app.campaigns.invoke_function("SendWorkerFunction", pipe.event(batches))
    except SystemExit:
        pass
    monkeypatch.setattr(providers, "send", real)
    assert len(camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"]) == 3
    # SQS redelivers the same message (twice, for good measure)
    pipe.run_batch(url, "SendWorkerFunction", batches)
    pipe.app.campaigns.invoke_function("SendWorkerFunction", pipe.event(batches))
    box = camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"]
    assert sorted(m["to"] for m in box) == [f"c{i}@example.com" for i in range(6)]
    d = camp.get(f"/campaigns/{cid}").json()["data"]
    assert d["status"] == "sent" and d["stats"]["sent"] == 6 and d["stats"]["delivered"] == 6


def test_cancel_during_sending_stops_the_rest(new_campaign, camp, pipe):
    cid = new_campaign(audience={"type": "test", "test_emails": [f"k{i}@example.com" for i in range(5)]})
    camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    url, batches = _batch_messages(pipe)
    assert camp.get(f"/campaigns/{cid}").json()["data"]["status"] == "sending"
    r = camp.post(f"/campaigns/{cid}/cancel")
    assert r.status == 200 and r.json()["data"]["status"] == "cancelled"
    pipe.run_batch(url, "SendWorkerFunction", batches)
    pipe.send_all()
    assert camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"] == []
    assert camp.get(f"/campaigns/{cid}").json()["data"]["status"] == "cancelled"


def test_campaign_send_idempotency_key(new_campaign, camp):
    cid = new_campaign()
    h = {"Idempotency-Key": "k-send"}
    r1 = camp.post(f"/campaigns/{cid}/send", json={"confirm": True}, headers=h)
    r2 = camp.post(f"/campaigns/{cid}/send", json={"confirm": True}, headers=h)
    assert r1.status == r2.status == 200 and r1.json()["data"] == r2.json()["data"]


def test_tenant_isolation(new_campaign, camp, campaigns_app, make_key):
    cid = new_campaign()
    other = make_key(account_id="acct-other")
    r = campaigns_app.campaigns.get(f"/campaigns/{cid}", headers={"Authorization": f"Bearer {other}"})
    assert r.status == 404
