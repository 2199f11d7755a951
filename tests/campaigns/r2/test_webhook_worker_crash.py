"""Fault test (issue 12): the webhook delivery worker dies mid-batch and SQS redelivers the batch.

The crash is placed at the worst point: the receiver has accepted the third delivery but the
worker dies before recording it. After redelivery no event is lost, deliveries recorded before
the crash are not sent again, and the one event sent twice carries the same ``webhook-id``, so a
receiver that de-duplicates on it applies every event exactly once.
"""
from __future__ import annotations

import json
import os


def test_worker_crash_mid_batch_then_redelivery_loses_nothing_and_doubles_nothing(camp, receiver, pipe, monkeypatch):
    hook = camp.post("/webhooks", json={"name": "h", "url": receiver.url, "events": ["contact.subscribed"]})
    assert hook.status == 201, hook.text
    emails = [f"p{i}@example.com" for i in range(4)]
    for e in emails:
        assert camp.post("/contacts", json={"email": e}).status == 201
    url = os.environ["CAMPAIGNS_WEBHOOK_QUEUE_URL"]
    batch = pipe.receive(url, 10)
    assert len(batch) == 4

    from campaigns.webhooks import service

    real = service._attempt
    calls = {"n": 0}

    def dies_after_third_post(w, d):
        res = real(w, d)
        calls["n"] += 1
        if calls["n"] == 3:
            raise SystemExit("worker killed after the receiver accepted, before recording")
        return res

    monkeypatch.setattr(service, "_attempt", dies_after_third_post)
    try:
        pipe.app.campaigns.invoke_function("WebhookWorkerFunction", pipe.event(batch))
    except SystemExit:
        pass
    monkeypatch.setattr(service, "_attempt", real)
    assert len(receiver.requests) == 3  # the fourth was never attempted

    # SQS redelivers the whole batch (nothing was deleted: the invocation died)
    failed = pipe.run_batch(url, "WebhookWorkerFunction", batch)
    assert failed == []

    ids = [r["headers"]["webhook-id"] for r in receiver.requests]
    assert len(receiver.requests) == 4 + 1  # one re-send of the unrecorded delivery
    assert len(set(ids)) == 4  # ... with the same webhook-id as its first send
    dup = [i for i in set(ids) if ids.count(i) == 2]
    assert len(dup) == 1
    first, again = [r for r in receiver.requests if r["headers"]["webhook-id"] == dup[0]]
    assert first["body"] == again["body"]  # identical bytes, so the same signature

    # de-duplicated on webhook-id, the receiver applied each event exactly once
    applied = {r["headers"]["webhook-id"]: json.loads(r["body"]) for r in receiver.requests}
    assert sorted(e["data"]["email"] for e in applied.values()) == emails

    from campaigns.webhooks import repository as repo

    items, _ = repo.list_deliveries(hook.json()["data"]["id"], 100, None)
    assert sorted(i["status"] for i in items) == ["delivered"] * 4
    assert pipe.queue_depth("CAMPAIGNS_WEBHOOK_QUEUE_URL") == 0
