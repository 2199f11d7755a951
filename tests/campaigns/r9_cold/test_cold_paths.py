"""Cold first request of the campaigns functions (issue 21, round 9): what a route's first request
loads and calls. The contact fields (statuses, bounds, cleaning rules, ``ContactOut``) are apart
from the contact routes' body models, so the export route and the import worker do not define
those models; a filter expression is built only by a query that filters (``lambdakit.conditions``:
no request imports the boto3 package for it)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.callcount import count_calls

ROOT = Path(__file__).resolve().parents[3]

PROBE = r"""
import json, sys
sys.path[:0] = [{layer!r}, {code!r}]
for m in ("contacts.handler", "contacts.import_worker", "auth.handler", "senders.handler", "templates.handler",
          "webhooks.handler", "webhooks.worker", "lists.handler", "campaign.worker"):
    __import__("campaigns." + m)
now = "2026-01-01T00:00:00Z"
from campaigns.apikeys import service as keys
from campaigns.contacts import records
from campaigns.senders import service as senders
from campaigns.templates import service as templates
from campaigns.webhooks import service as webhooks
views = [
    keys.public({{"key_id": "k", "name": "n", "prefix": "ck_x", "scopes": [], "plan": "pro", "status": "active",
                 "restrictions": {{}}, "created_at": now}}),
    records.public({{"id": "c", "email": "a@example.com", "status": "active", "created_at": now, "updated_at": now}}),
    senders.public({{"id": "s", "identity": "example.com", "type": "domain", "status": "verified", "created_at": now,
                    "updated_at": now}}),
    templates.public({{"id": "t", "name": "n", "subject": "s", "content": "c", "type": "html", "category": "",
                      "variables": [], "created_at": now, "updated_at": now}}),
    webhooks._view({{"id": "w", "name": "n", "url": "https://example.com/h", "events": ["email.sent"],
                    "secret": "whsec_abcdefgh", "enabled": True, "created_at": now, "updated_at": now}}),
]
body_models = ("campaigns.contacts.models", "campaigns.apikeys.models", "campaigns.senders.models",
               "campaigns.templates.models", "campaigns.webhooks.models", "campaigns.attachments.models",
               "campaigns.common.pagedocs")
out = {{"loaded": sorted(m for m in body_models if m in sys.modules), "views": len(views)}}
import importlib
pairs = {{"contacts": ("fields", ["STATUSES", "MAX_TAGS", "MAX_LISTS", "MAX_CUSTOM_FIELDS", "clean_tags",
                                  "clean_custom", "clean_lists", "clean_email", "ContactOut"]),
          "apikeys": ("views", ["KeyOut", "KeyRestrictionsOut"]), "senders": ("views", ["Sender", "Dkim", "DnsRecord"]),
          "templates": ("views", ["TemplateOut"]), "webhooks": ("views", ["Webhook", "WebhookWithSecret", "Delivery",
                                                                          "TestResult"])}}
out["reexported"] = all(getattr(importlib.import_module(f"campaigns.{{pkg}}.models"), n)
                        is getattr(importlib.import_module(f"campaigns.{{pkg}}.{{mod}}"), n)
                        for pkg, (mod, names) in pairs.items() for n in names)
print(json.dumps(out))
"""


def test_read_paths_and_workers_do_not_load_the_body_models():
    """The handlers (each function's module) and the public views of a contact, key, sender,
    template and webhook: no request-body or documentation model module is defined; the body
    modules still export the view names (the OpenAPI refers to them)."""
    code = PROBE.format(layer=str(ROOT / "layers" / "shared"), code=str(ROOT / "functions" / "campaigns"))
    env = {k: v for k, v in os.environ.items() if k not in ("LAMBDA_TASK_ROOT", "AWS_SAM_LOCAL")}
    env.setdefault("CAMPAIGNS_STAGE", "local")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out == {"loaded": [], "views": 5, "reexported": True}


def _no_boto3(seen: set[str]) -> list[str]:
    return sorted(m for m in seen if m.split(".")[0] in ("boto3", "s3transfer"))


@pytest.fixture
def no_condition_builder(monkeypatch):
    """The test's requests build no filter expression (``ddb.build_filter`` fails, a 500) and no
    import statement of theirs names a boto3 module."""
    from lambdakit import ddb
    from tests.exams.delivery.test_cold_imports import imports_requested

    def refuse(flt):
        raise AssertionError(f"a filter expression was built: {flt!r}")

    monkeypatch.setattr(ddb, "build_filter", refuse)
    with imports_requested() as seen:
        yield
    assert _no_boto3(seen) == []


def _contacts(camp, n: int, lid: str | None = None) -> None:
    for i in range(n):
        body = {"email": f"cold{i}@example.com", "first_name": f"C{i}", **({"lists": [lid]} if lid else {})}
        assert camp.post("/contacts", json=body).status == 201


def test_unfiltered_exports_build_no_condition(camp, no_condition_builder):
    """The export's reads: the key, the rate limit, the counters, one page of contacts; no filter
    (an export of all contacts or of one status reads an index of exactly those)."""
    _contacts(camp, 3)
    for query, rows in (({}, 3), ({"status": "active"}, 3), ({"status": "bounced"}, 0)):
        with count_calls() as cc:
            r = camp.get("/contacts/export", query=query)
        assert r.status == 200, r.text
        assert r.headers["x-total-count"] == str(rows)
        assert cc.calls == {"dynamodb.GetItem": 1, "dynamodb.UpdateItem": 1, "dynamodb.BatchGetItem": 1,
                            "dynamodb.Query": 1}, cc.calls


def test_a_filtered_query_still_filters(camp, monkeypatch):
    """A list's members of one status: the filter is built (the only query here that needs it), by
    ``lambdakit.conditions``, without the boto3 package."""
    from lambdakit import ddb
    from tests.exams.delivery.test_cold_imports import imports_requested

    built: list[object] = []
    real = ddb.build_filter
    monkeypatch.setattr(ddb, "build_filter", lambda flt: built.append(flt) or real(flt))
    lid = camp.post("/lists", json={"name": "cold"}).json()["data"]["id"]
    _contacts(camp, 2, lid)
    members = camp.get("/contacts", query={"list_id": lid}).json()["data"]["contacts"]
    assert camp.put(f"/contacts/{members[0]['id']}", json={"status": "unsubscribed"}).status == 200
    with imports_requested() as seen:
        r = camp.get("/contacts/export", query={"list_id": lid, "status": "active", "fields": "email"})
    assert r.status == 200 and r.headers["x-total-count"] == "1", r.text
    assert len(built) == 1 and _no_boto3(seen) == []
    assert r.text.split("\r\n")[:2] == ["email", members[1]["email"]]


def test_outbox_without_a_recipient_filter_builds_no_condition(camp, no_condition_builder):
    with count_calls() as cc:
        r = camp.get("/email/outbox")
    assert r.status == 200, r.text
    assert cc.calls == {"dynamodb.GetItem": 1, "dynamodb.UpdateItem": 1, "dynamodb.Query": 1}, cc.calls
    assert camp.get("/email/outbox", query={"to": "x@example.com"}).status == 200  # its own index: no filter


# ---------------------------------------------------------------- the webhook delivery worker's read
def _deliveries(camp, receiver, pipe, n: int) -> list[dict]:
    hook = camp.post("/webhooks", json={"name": "h", "url": receiver.url, "events": ["contact.subscribed"]})
    assert hook.status == 201, hook.text
    for i in range(n):
        assert camp.post("/contacts", json={"email": f"wh{i}@example.com"}).status == 201
    msgs = pipe.receive(os.environ["CAMPAIGNS_WEBHOOK_QUEUE_URL"], 10)
    assert len(msgs) == n
    return msgs


def _work(pipe, msgs: list[dict]) -> tuple[list[str], dict]:
    with count_calls() as cc:
        failed = pipe.run_batch(os.environ["CAMPAIGNS_WEBHOOK_QUEUE_URL"], "WebhookWorkerFunction", msgs)
    return failed, {k: v for k, v in cc.calls.items() if k.startswith("dynamodb.")}


def test_a_delivery_reads_itself_and_its_webhook_in_one_batch(camp, receiver, pipe):
    """One BatchGetItem (the delivery, consistent, and its webhook) and the status write."""
    msgs = _deliveries(camp, receiver, pipe, 1)
    failed, calls = _work(pipe, msgs)
    assert failed == [] and calls == {"dynamodb.BatchGetItem": 1, "dynamodb.UpdateItem": 1}, calls
    assert len(receiver.requests) == 1
    failed, calls = _work(pipe, msgs)  # the same message again: delivered already, nothing sent or written
    assert failed == [] and calls == {"dynamodb.BatchGetItem": 1} and len(receiver.requests) == 1, calls


def test_a_delivery_of_a_disabled_or_deleted_webhook_is_cancelled(camp, receiver, pipe):
    msgs = _deliveries(camp, receiver, pipe, 2)
    wid = json.loads(msgs[0]["Body"])["webhook_id"]
    assert camp.put(f"/webhooks/{wid}", json={"enabled": False}).status == 200
    failed, calls = _work(pipe, msgs[:1])
    assert failed == [] and calls == {"dynamodb.BatchGetItem": 1, "dynamodb.UpdateItem": 1}, calls
    log = camp.get(f"/webhooks/{wid}/deliveries").json()["data"]["deliveries"]
    did = json.loads(msgs[0]["Body"])["delivery_id"]
    assert [(d["status"], d["last_error"]) for d in log if d["id"] == did] == [
        ("cancelled", "webhook deleted or disabled")], log
    assert camp.delete(f"/webhooks/{wid}").status == 200
    failed, calls = _work(pipe, msgs[1:])
    assert failed == [] and receiver.requests == []
    assert calls.get("dynamodb.BatchGetItem") == 1 and "dynamodb.GetItem" not in calls, calls


# ---------------------------------------------------------------- the fan-out's last step
def _send_queue() -> str:
    return os.environ["CAMPAIGNS_SEND_QUEUE_URL"]


def _one(pipe, kind: str) -> dict:
    msgs = [m for m in pipe.receive(_send_queue(), 10)]
    assert [json.loads(m["Body"])["type"] for m in msgs] == [kind], [m["Body"] for m in msgs]
    return msgs[0]


@pytest.mark.parametrize("members", [3, 0])
def test_the_last_fanout_step_finishes_from_its_own_write(camp, new_campaign, pipe, members):
    """The last fan-out step decides on finishing from its progress write's image: no read after
    it (one GetItem: the campaign, before the step). With members, the batches finish the campaign
    afterwards; an empty list's campaign is finished by that step itself."""
    lid = camp.post("/lists", json={"name": "fan"}).json()["data"]["id"]
    for i in range(members):
        assert camp.post("/contacts", json={"email": f"fan{i}@example.com", "lists": [lid]}).status == 201
    cid = new_campaign(audience={"type": "list", "list_id": lid})
    assert camp.post(f"/campaigns/{cid}/send", json={"confirm": True}).status == 200
    start = _one(pipe, "start")
    assert pipe.run_batch(_send_queue(), "SendWorkerFunction", [start]) == []
    fanout = _one(pipe, "fanout")
    with count_calls() as cc:
        assert pipe.run_batch(_send_queue(), "SendWorkerFunction", [fanout]) == []
    calls = {k: v for k, v in cc.calls.items() if k.startswith("dynamodb.")}
    status = camp.get(f"/campaigns/{cid}").json()["data"]["status"]
    if members:
        assert calls == {"dynamodb.GetItem": 1, "dynamodb.Query": 1, "dynamodb.UpdateItem": 1}, calls
        assert cc.calls.get("sqs.SendMessageBatch") == 1 and status == "sending"
        pipe.send_all()
        d = camp.get(f"/campaigns/{cid}").json()["data"]
        assert (d["status"], d["stats"]["sent"]) == ("sent", members)
    else:
        assert calls["dynamodb.GetItem"] == 1 and calls["dynamodb.TransactWriteItems"] == 1, calls
        assert status == "sent"
    assert pipe.tick()["finished"] == 0  # finished once


# ---------------------------------------------------------------- the dispatcher's start of a due campaign
def _due_campaign(camp, new_campaign) -> str:
    import datetime as dt

    from lambdakit import clock

    lid = camp.post("/lists", json={"name": "due"}).json()["data"]["id"]
    for i in range(2):
        assert camp.post("/contacts", json={"email": f"due{i}@example.com", "lists": [lid]}).status == 201
    tid = camp.post("/templates", json={"name": "t", "subject": "From the template {{email}}",
                                        "content": "<p>Template body</p>"}).json()["data"]["id"]
    when = clock.iso(clock.now() + dt.timedelta(hours=1))
    cid = new_campaign(audience={"type": "list", "list_id": lid}, template_id=tid, subject=None, content=None,
                       schedule={"type": "scheduled", "date": when})
    assert camp.post(f"/campaigns/{cid}/send", json={"confirm": True}).status == 200
    return cid


def _sent_as_templated(camp, cid: str) -> None:
    d = camp.get(f"/campaigns/{cid}").json()["data"]
    assert (d["status"], d["stats"]["sent"]) == ("sent", 2)
    box = camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"]
    assert sorted(m["subject"] for m in box) == ["From the template due0@example.com",
                                                 "From the template due1@example.com"]


def test_a_due_campaign_is_read_with_its_list_and_template_in_one_batch(camp, new_campaign, pipe):
    """The tick's start reads the campaign (consistent), its list's counters and its template in one
    BatchGetItem (no GetItem); the snapshot and the audience size come from those items."""
    from lambdakit import clock

    cid = _due_campaign(camp, new_campaign)
    clock.set_offset(3700)
    try:
        with count_calls() as cc:
            assert pipe.tick()["started"] == 1
        pipe.send_all()
    finally:
        clock.set_offset(0)
    assert "dynamodb.GetItem" not in cc.calls and cc.calls.get("dynamodb.TransactWriteItems") == 1, cc.calls
    _sent_as_templated(camp, cid)


def test_a_start_whose_index_entry_is_stale_reads_what_the_campaign_names(camp, new_campaign, pipe):
    """The due index showed another list and template (the campaign changed since): the items read
    with the campaign are not used; the campaign's own list and template are read."""
    from campaigns.campaign import dispatcher
    from campaigns.campaign import repository as repo
    from lambdakit import clock

    cid = _due_campaign(camp, new_campaign)
    item = repo.get(cid, consistent=True)
    stale = {**item, "template_id": "gone", "audience": {"type": "list", "list_id": "gone"}}
    clock.set_offset(3700)
    try:
        with count_calls() as cc:
            assert dispatcher.start(cid, stale) is True
        assert dispatcher.start(cid, stale) is False  # once
        pipe.send_all()
    finally:
        clock.set_offset(0)
    assert (cc.calls.get("dynamodb.BatchGetItem"), cc.calls.get("dynamodb.GetItem")) == (1, 2), cc.calls
    _sent_as_templated(camp, cid)


# ---------------------------------------------------------------- SES feedback redelivered
def _delivery_event(send_id: str, rkey: str) -> dict:
    body = {"source": "aws.ses", "detail-type": "Email Delivered", "detail": {
        "eventType": "Delivery", "delivery": {"timestamp": "2026-01-01T00:00:00Z"},
        "mail": {"messageId": "m-9", "destination": ["fb@example.com"],
                 "tags": {"account": ["acct-test"], "send": [send_id], "rkey": [rkey]}}}}
    return {"Records": [{"messageId": "1", "receiptHandle": "r", "body": json.dumps(body), "attributes": {},
                         "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
                         "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:feedback", "awsRegion": "us-east-1"}]}


def test_a_redelivered_ses_event_is_confirmed_from_the_failed_write(camp, campaigns_app):
    """The status move's condition failure carries the record as it found it: a redelivered event
    is recognised without reading the record again, and changes nothing."""
    from campaigns.sending import repository as sends

    assert sends.claim("m-fb", "r1", {"account_id": "acct-test", "email": "fb@example.com"}) is None
    sends.finish("m-fb", "r1", "sent", sent_at="2026-01-01T00:00:00Z")
    runs = []
    for _ in range(2):
        with count_calls() as cc:
            assert campaigns_app.campaigns.invoke_function("FeedbackWorkerFunction", _delivery_event("m-fb", "r1")) == {
                "batchItemFailures": []}
        runs.append({k: v for k, v in cc.calls.items() if k in ("dynamodb.GetItem", "dynamodb.UpdateItem")})
        rec = sends.get_recipient("m-fb", "r1")
        assert rec["status"] == "delivered" and rec["delivered_at"], rec
    assert runs[1] == {"dynamodb.GetItem": 1, "dynamodb.UpdateItem": 1}, runs  # the record, the failed move
    assert runs[0]["dynamodb.GetItem"] == 1, runs
    first = rec["delivered_at"]
    assert sends.set_recipient_status("m-fb", "r1", "delivered", ["sent", "claimed"], delivered_at=first) is True
    assert sends.set_recipient_status("m-fb", "r1", "delivered", ["sent", "claimed"], delivered_at="other") is False
    assert sends.set_recipient_status("m-none", "r1", "delivered", ["sent"]) is False  # no record
