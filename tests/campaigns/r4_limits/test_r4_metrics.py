"""Issue #18 item 1 (campaigns): business metrics where the fact becomes true, once, and every
non-HTTP entry point flushes them."""
from __future__ import annotations

import importlib
import re

import pytest

from tests.campaigns.audience.test_audience_import_export import _sqs_event, multipart
from tests.campaigns.r4_limits.emf import emf, total
from tests.campaigns.sending.test_audience_sends import _ses_event

IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
SANDBOX = {"provider": "sandbox", "from_email": "news@example.com"}


def _path(url: str) -> str:
    return re.sub(r"^https?://[^/]+", "", url)


def test_sandbox_send_outcomes_are_counted_once_with_provider(camp, capsys):
    cid = camp.post("/contacts", json={"email": "gone@example.com"}).json()["data"]["id"]
    assert camp.put(f"/contacts/{cid}", json={"status": "unsubscribed"}).status == 200
    capsys.readouterr()
    for to in ("ok@example.com", "bounce@simulator.amazonses.com", "complaint@simulator.amazonses.com",
               "gone@example.com"):
        r = camp.post("/email/send", json={"to": to, "subject": "s", "text": "t", "provider": SANDBOX},
                      headers={"Idempotency-Key": f"k-{to}"})
        assert r.status == 200, r.text
    # the same requests again: answered from the idempotency record, nothing counted twice
    for to in ("ok@example.com", "gone@example.com"):
        camp.post("/email/send", json={"to": to, "subject": "s", "text": "t", "provider": SANDBOX},
                  headers={"Idempotency-Key": f"k-{to}"})
    p = emf(capsys.readouterr().out)
    assert total(p, "EmailsSent", provider="sandbox") == 3
    assert total(p, "EmailsDelivered", provider="sandbox") == 2  # ok + complaint (delivered, then complained)
    assert total(p, "EmailsBounced", provider="sandbox") == 1
    assert total(p, "EmailsComplained", provider="sandbox") == 1
    assert total(p, "EmailsSuppressed", provider="sandbox") == 1
    assert total(p, "EmailsFailed") == 0


def test_ses_sends_and_feedback_count_once(camp, pipe, new_campaign, capsys):
    ids = [camp.post("/contacts", json={"email": f"p{i}@example.com"}).json()["data"]["id"] for i in range(2)]
    lid = camp.post("/lists", json={"name": "l"}).json()["data"]["id"]
    for c in ids:
        camp.put(f"/contacts/{c}", json={"lists": [lid]})
    cid = new_campaign(audience={"type": "list", "list_id": lid},
                       settings={"from_email": "news@example.com", "provider": {"provider": "ses"}})
    camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    capsys.readouterr()
    pipe.send_all()
    p = emf(capsys.readouterr().out)  # printed by the send worker itself
    assert total(p, "EmailsSent", provider="ses") == 2 and total(p, "EmailsDelivered") == 0
    tags = {"account": "acct-test", "send": f"c-{cid}"}
    for _ in range(2):  # redelivered feedback counts once
        pipe.app.campaigns.invoke_function("FeedbackWorkerFunction", _ses_event(
            "Delivery", {**tags, "rkey": ids[0]}, {"delivery": {}}))
        pipe.app.campaigns.invoke_function("FeedbackWorkerFunction", _ses_event(
            "Bounce", {**tags, "rkey": ids[1]}, {"bounce": {"bounceType": "Permanent",
                                                            "bouncedRecipients": [{"emailAddress": "p1@example.com"}]}}))
        pipe.app.campaigns.invoke_function("FeedbackWorkerFunction", _ses_event(
            "Complaint", {**tags, "rkey": ids[0]}, {"complaint": {}}))
    p = emf(capsys.readouterr().out)
    assert total(p, "EmailsDelivered", provider="ses") == 1
    assert total(p, "EmailsBounced", provider="ses") == 1
    assert total(p, "EmailsComplained", provider="ses") == 1


def test_opens_and_clicks_count_human_ones(camp, pipe, new_campaign, later, capsys):
    cid = new_campaign(audience={"type": "test", "test_emails": ["t0@example.com"]})
    camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    pipe.send_all()
    html = camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"][0]["html"]
    later()
    pixel = _path(re.search(r'src="([^"]+/t/o/[^"]+)"', html).group(1))
    link = _path(re.search(r'href="([^"]+/t/c/[^"]+)"', html).group(1))
    capsys.readouterr()
    camp.get(pixel, headers={"user-agent": IPHONE})
    camp.get(pixel, headers={"user-agent": IPHONE})
    camp.get(pixel, headers={"user-agent": "Mozilla/5.0"})  # Apple MPP proxy: a machine open
    assert camp.get(link, headers={"user-agent": IPHONE}).status == 302
    p = emf(capsys.readouterr().out)
    assert total(p, "EmailOpens") == 2 and total(p, "EmailClicks") == 1


def test_webhook_delivery_outcomes(camp, pipe, receiver, new_campaign, capsys, monkeypatch):
    from lambdakit import settings as ls

    camp.post("/webhooks", json={"name": "r", "url": receiver.url, "events": ["campaign.created"]})
    receiver.script = [500]
    new_campaign()
    capsys.readouterr()
    pipe.webhooks_all()  # first attempt fails (retry scheduled)
    p = emf(capsys.readouterr().out)
    assert total(p, "WebhookDeliveriesFailed") == 1 and total(p, "WebhookDeliveriesSucceeded") == 0
    import time

    for _ in range(5):
        time.sleep(1.1)
        pipe.webhooks_all()
        if receiver.requests and len(receiver.requests) >= 2:
            break
    p = emf(capsys.readouterr().out)
    assert total(p, "WebhookDeliveriesSucceeded") == 1 and total(p, "WebhookDeliveriesFailed") == 0
    monkeypatch.setenv("CAMPAIGNS_WEBHOOK_MAX_ATTEMPTS", "1")
    ls.reset_settings()
    receiver.default = 503
    new_campaign(name="again")
    capsys.readouterr()
    pipe.webhooks_all()
    p = emf(capsys.readouterr().out)
    assert total(p, "WebhookDeliveriesDeadLettered") == 1 and total(p, "WebhookDeliveriesFailed") == 0


def test_import_rows_are_counted_per_chunk_as_values(camp, campaigns_app, capsys):
    camp.post("/contacts", json={"email": "old@example.com"})
    csv_text = "email,first_name\r\nn1@example.com,A\r\nn2@example.com,B\r\nN1@example.com,C\r\nbad,D\r\nold@example.com,E\r\n"
    body, headers = multipart(csv_text.encode())
    capsys.readouterr()
    assert camp.post("/contacts/import", body=body, headers=headers).status == 200
    p = emf(capsys.readouterr().out)
    assert [(n, v) for n, v, _ in p if n.startswith("ImportRows")] == [("ImportRowsImported", 2.0),
                                                                      ("ImportRowsSkipped", 3.0)]
    body, headers = multipart(csv_text.encode(), update_existing="true")
    camp.post("/contacts/import", body=body, headers=headers)
    p = emf(capsys.readouterr().out)
    assert total(p, "ImportRowsUpdated") == 1 and total(p, "ImportRowsSkipped") == 4  # old@ merged; the rest unchanged
    assert total(p, "ImportRowsImported") == 0

    import json

    import boto3

    job = camp.post("/contacts/imports", json={}).json()["data"]
    bucket = campaigns_app.envs["campaigns"].refs["ImportUploadsBucket"]
    key = job["upload"]["fields"]["key"]
    rows = "\n".join(f"j{i}@example.com" for i in range(150))
    boto3.client("s3").put_object(Bucket=bucket, Key=key, Body=("email\n" + rows + "\n").encode())
    ev = json.dumps({"Records": [{"eventName": "ObjectCreated:Post", "s3": {"bucket": {"name": bucket},
                                                                          "object": {"key": key}}}]})
    capsys.readouterr()
    campaigns_app.campaigns.invoke_function("ImportWorkerFunction", _sqs_event(ev))
    p = emf(capsys.readouterr().out)  # flushed by the worker: no HTTP call in between
    assert [(n, v) for n, v, _ in p if n.startswith("ImportRows")] == [("ImportRowsImported", 100.0),
                                                                      ("ImportRowsImported", 50.0)]


@pytest.mark.parametrize("module, function, event", [
    ("campaigns.campaign.worker", "SendWorkerFunction", {"Records": []}),
    ("campaigns.feedback.worker", "FeedbackWorkerFunction", {"Records": []}),
    ("campaigns.webhooks.worker", "WebhookWorkerFunction", {"Records": []}),
    ("campaigns.contacts.import_worker", "ImportWorkerFunction", {"Records": []}),
    ("campaigns.campaign.dispatcher", "DispatcherFunction", {"source": "aws.events"}),
])
def test_non_http_entry_points_flush_metrics(campaigns_app, monkeypatch, module, function, event):
    from lambdakit import observability

    calls = []
    importlib.import_module(module)
    # the entry point's shared wrapper (lambdakit.observability.worker_entry) flushes
    monkeypatch.setattr(observability, "flush_metrics", lambda: calls.append(1))
    try:
        campaigns_app.campaigns.invoke_function(function, event)
    except Exception:  # noqa: BLE001 - an empty batch may be refused; the flush must happen anyway
        pass
    assert calls == [1]
