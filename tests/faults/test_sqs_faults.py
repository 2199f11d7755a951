# ruff: noqa: F811 - the campaign fixtures are imported by name, and tests take them as parameters
"""Issue 23 rule 4: an SQS send failure while queuing a bulk send, a webhook delivery or a campaign
start. The API says so (202 ``queueing`` / ``queued: false``, never a 500) and nothing is
half-queued: what SQS refused stays in an outbox and the dispatcher's tick queues it, once.

Faults are botocore ``before-call`` hooks on the real SQS client (``lambdakit.aws.client("sqs")``)
talking to moto: a call answered with SQS's ``InternalError`` (what is left after botocore's
retries), or a ``SendMessageBatch`` answer with ``Failed`` entries (the other entries really sent,
through a client without hooks). State is read back through the API and from the queues: every
batch queued exactly once, every recipient sent once, every webhook event delivered once.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import os
from typing import Iterator

import pytest
from botocore.awsrequest import AWSResponse

from tests.campaigns.conftest import camp, later, new_campaign, pipe, receiver  # noqa: F401 - fixtures
from tests.campaigns.r4_limits.emf import emf, total

SEND_Q, HOOK_Q = "CAMPAIGNS_SEND_QUEUE_URL", "CAMPAIGNS_WEBHOOK_QUEUE_URL"
_ids = itertools.count()


class Crash(Exception):
    """The function dies in the middle of the relay (a timeout, an out-of-memory kill)."""


def _meta(status: int) -> dict:
    return {"HTTPStatusCode": status, "HTTPHeaders": {}, "RetryAttempts": 0}


@contextlib.contextmanager
def sqs_fault(queue_env: str, plan: dict[int, object]) -> Iterator[dict]:
    """Fail ``SendMessageBatch`` calls to one queue: ``plan`` maps the call number (1-based,
    counted over that queue's calls) to ``"error"`` (SQS answers ``InternalError``), ``"crash"``
    (the process dies: an exception no product code catches) or a set of entry positions SQS
    answers as ``Failed`` (the others are really queued)."""
    import boto3

    from lambdakit import aws

    url = os.environ[queue_env]
    plain = boto3.client("sqs", region_name="us-east-1")
    state = {"calls": 0, "fired": 0}

    def hook(model, params, **_):
        body = json.loads(params.get("body") or b"{}")  # before-call sees the serialised request
        if body.get("QueueUrl") != url:
            return None
        state["calls"] += 1
        fault = plan.get(state["calls"])
        if fault is None:
            return None
        state["fired"] += 1
        if fault == "crash":
            raise Crash("killed mid-relay")
        if fault == "error":
            return AWSResponse(url, 500, {}, None), {
                "Error": {"Code": "InternalError", "Message": "We encountered an internal error."},
                "ResponseMetadata": _meta(500)}
        entries = body["Entries"]
        failed = {entries[i]["Id"] for i in fault if i < len(entries)}  # type: ignore[union-attr]
        keep = [e for e in entries if e["Id"] not in failed]
        ok = plain.send_message_batch(QueueUrl=url, Entries=keep).get("Successful", []) if keep else []
        return AWSResponse(url, 200, {}, None), {
            "Successful": ok, "ResponseMetadata": _meta(200),
            "Failed": [{"Id": i, "SenderFault": False, "Code": "InternalError", "Message": "internal"} for i in failed]}

    uid = f"sqs-fault-{next(_ids)}"
    events = aws.client("sqs").meta.events
    events.register("before-call.sqs.SendMessageBatch", hook, unique_id=uid)
    try:
        yield state
    finally:
        events.unregister("before-call.sqs.SendMessageBatch", unique_id=uid)


def _err_ok(r, status: int) -> None:
    assert r.status == status, r.text
    body = r.json()
    assert body["success"] is False and body["error"]["code"] and "Traceback" not in r.text


def take_all(pipe, queue_env: str) -> list[dict]:
    """Every message now on the queue (received and kept invisible, to be run by ``run``)."""
    url, out = os.environ[queue_env], []
    while msgs := pipe.receive(url, 10):
        out += msgs
    return out


def run(pipe, queue_env: str, fn: str, msgs: list[dict]) -> None:
    url = os.environ[queue_env]
    for i in range(0, len(msgs), 10):
        assert not pipe.run_batch(url, fn, msgs[i:i + 10])


def batch_numbers(msgs: list[dict], bulk_id: str) -> list[int]:
    bodies = [json.loads(m["Body"]) for m in msgs]
    return sorted(b["batch_no"] for b in bodies if b.get("bulk_id") == bulk_id)


def _bulk(camp, n: int, key: str | None = None, **over):
    body = {"recipients": [{"to": f"q{i}@example.com"} for i in range(n)], "subject": "Hi", "text": "hello",
            "batch_size": 1, **over}
    return camp.post("/email/bulk", json=body, headers={"Idempotency-Key": key} if key else {})


def _outbox_count(camp, bulk_id: str) -> dict[str, int]:
    out: dict[str, int] = {}
    cursor = None
    while True:
        q = {"bulk_id": bulk_id, "limit": "100", **({"cursor": cursor} if cursor else {})}
        d = camp.get("/email/outbox", query=q).json()["data"]
        for m in d["messages"]:
            out[m["to"]] = out.get(m["to"], 0) + 1
        cursor = d["pagination"]["next_cursor"]
        if not cursor:
            return out


def _sent_once(camp, pipe, bulk_id: str, n: int) -> None:
    """Queue read back: each batch exactly once; then the worker sends each recipient once."""
    msgs = take_all(pipe, SEND_Q)
    assert batch_numbers(msgs, bulk_id) == list(range(1, n + 1)), "every batch queued exactly once"
    run(pipe, SEND_Q, "SendWorkerFunction", msgs)
    st = camp.get(f"/email/bulk/{bulk_id}").json()["data"]
    assert st["status"] == "completed" and st["sent"] == n and st["batches_done"] == n, st
    assert _outbox_count(camp, bulk_id) == {f"q{i}@example.com": 1 for i in range(n)}


# ---------------------------------------------------------------- bulk sends
def test_bulk_queue_error_midway_answers_202_queueing_and_the_tick_queues_the_rest_once(camp, pipe, capsys):
    with sqs_fault(SEND_Q, {2: "error"}) as f:  # 25 batches: calls of 10, 10, 5; the 2nd refused
        r = _bulk(camp, 25, key="bulk-k1")
    assert f["fired"] == 1
    assert r.status == 202, r.text
    d = r.json()["data"]
    assert d["status"] == "queueing" and d["batches"] == 25 and d["batches_queued"] == 10, d
    bid = d["bulk_id"]
    assert camp.get(f"/email/bulk/{bid}").json()["data"]["status"] == "queueing"
    # the same request again: the first answer, no second bulk, nothing queued again
    again = _bulk(camp, 25, key="bulk-k1")
    assert again.status == 202 and again.json()["data"]["bulk_id"] == bid
    assert pipe.queue_depth(SEND_Q) == 10
    capsys.readouterr()
    t = pipe.tick()
    assert t["bulk_batches_requeued"] == 15, t
    assert total(emf(capsys.readouterr().out), "BulkBatchesRequeued") == 15
    assert pipe.tick()["bulk_batches_requeued"] == 0  # nothing left in the outbox
    assert camp.get(f"/email/bulk/{bid}").json()["data"]["status"] == "queued"
    _sent_once(camp, pipe, bid, 25)


def test_bulk_failed_entries_are_left_in_the_outbox_and_queued_once_by_the_tick(camp, pipe):
    with sqs_fault(SEND_Q, {1: {2, 5}}) as f:  # SendMessageBatch answers 2 of its first 10 entries Failed
        r = _bulk(camp, 12)
    assert f["fired"] == 1 and r.status == 202, r.text
    d = r.json()["data"]
    assert d["status"] == "queueing" and d["batches_queued"] == 8, d  # the relay stops at the first refusal
    assert pipe.tick()["bulk_batches_requeued"] == 4  # the 2 refused and the 2 not tried
    _sent_once(camp, pipe, d["bulk_id"], 12)


def test_bulk_while_the_queue_is_down_nothing_is_lost_and_the_tick_resumes_when_it_is_back(camp, pipe):
    down = {i: "error" for i in range(1, 20)}
    with sqs_fault(SEND_Q, down):
        r = _bulk(camp, 5, send_in_parallel=False)
        assert r.status == 202, r.text
        d = r.json()["data"]
        assert d["status"] == "queueing" and d["batches_queued"] == 0
        assert pipe.tick()["bulk_batches_requeued"] == 0  # still down: the rows stay, the lease is given back
    assert pipe.queue_depth(SEND_Q) == 0
    assert pipe.tick()["bulk_batches_requeued"] == 5
    # paced: the batches carry their delays (moto keeps them invisible); read back from the table
    from campaigns.sending import repository as repo

    attrs = pipe.sqs.get_queue_attributes(QueueUrl=os.environ[SEND_Q], AttributeNames=["All"])["Attributes"]
    queued = sum(int(attrs[k]) for k in ("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesDelayed"))
    assert repo.outbox_rows(d["bulk_id"]) == [] and queued == 5


def test_bulk_crash_after_commit_a_retry_with_the_same_key_makes_no_second_bulk(camp, pipe, later):
    with sqs_fault(SEND_Q, {2: "crash"}):
        r = _bulk(camp, 25, key="bulk-crash")
    _err_ok(r, 500)  # the generic last-resort answer of a crashed request, in the service's format
    other = _bulk(camp, 24, key="bulk-crash")  # the key with another body: refused, as the key's rule says
    _err_ok(other, 422)
    assert "Idempotency-Key" in other.json()["error"]["details"]
    again = _bulk(camp, 25, key="bulk-crash")
    assert again.status == 202, again.text
    d = again.json()["data"]
    assert d["status"] == "queueing" and d["batches_queued"] == 10, d
    assert pipe.tick()["bulk_batches_requeued"] == 0  # the crashed relayer's lease still holds
    from campaigns.sending import relay

    later(relay.LEASE_SECONDS + 1)
    assert pipe.tick()["bulk_batches_requeued"] == 15
    later(0)
    _sent_once(camp, pipe, d["bulk_id"], 25)
    bulks = {m["bulk_id"] for m in camp.get("/email/outbox", query={"limit": "100"}).json()["data"]["messages"]}
    assert bulks == {d["bulk_id"]}, "one bulk for the key"


def test_a_batch_queued_twice_sends_and_counts_once(camp, pipe):
    r = _bulk(camp, 3)
    bid = r.json()["data"]["bulk_id"]
    msgs = take_all(pipe, SEND_Q)
    from campaigns.sending import repository as repo

    repo.enqueue([json.loads(m["Body"]) for m in msgs])  # what an at-least-once relay can do
    run(pipe, SEND_Q, "SendWorkerFunction", msgs + take_all(pipe, SEND_Q))
    st = camp.get(f"/email/bulk/{bid}").json()["data"]
    assert st["status"] == "completed" and st["sent"] == 3 and st["batches_done"] == 3, st
    assert _outbox_count(camp, bid) == {f"q{i}@example.com": 1 for i in range(3)}


# ---------------------------------------------------------------- campaign start
def test_campaign_start_refused_by_the_queue_is_started_by_the_tick(camp, pipe, new_campaign):
    cid = new_campaign()
    with sqs_fault(SEND_Q, {1: "error"}) as f:
        r = camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    assert f["fired"] == 1 and r.status == 200, r.text
    assert r.json()["data"]["status"] == "scheduled"
    assert pipe.queue_depth(SEND_Q) == 0
    assert pipe.tick()["started"] == 1
    pipe.send_all()
    c = camp.get(f"/campaigns/{cid}").json()["data"]
    assert c["status"] == "sent" and c["stats"]["sent"] == 5, c


# ---------------------------------------------------------------- webhook deliveries
@pytest.fixture
def hooked(camp, receiver):
    w = camp.post("/webhooks", json={"name": "w", "url": receiver.url, "events": ["contact.subscribed"]})
    assert w.status == 201, w.text
    return w.json()["data"]["id"]


def _deliveries(camp, wid: str) -> list[dict]:
    return camp.get(f"/webhooks/{wid}/deliveries").json()["data"]["deliveries"]


def test_webhook_event_refused_by_the_queue_is_recorded_and_delivered_once_by_the_sweep(
        camp, pipe, hooked, receiver, later, capsys):
    with sqs_fault(HOOK_Q, {1: "error"}) as f:
        r = camp.post("/contacts", json={"email": "sub@example.com"})
    assert f["fired"] == 1 and r.status == 201, r.text  # the contact is created: the event is the outbox's
    assert [d["status"] for d in _deliveries(camp, hooked)] == ["pending"]
    pipe.webhooks_all()
    assert receiver.requests == []
    assert pipe.tick()["webhooks_requeued"] == 0  # not stale yet
    from campaigns.webhooks import dispatch

    later(dispatch.RELAY_STALE_SECONDS + 1)
    capsys.readouterr()
    assert pipe.tick()["webhooks_requeued"] == 1
    assert total(emf(capsys.readouterr().out), "WebhookDeliveriesRequeued") == 1
    pipe.webhooks_all()
    assert len(receiver.requests) == 1 and receiver.events()[0]["data"]["email"] == "sub@example.com"
    assert [(d["status"], d["attempts"]) for d in _deliveries(camp, hooked)] == [("delivered", 1)]
    later(2 * dispatch.RELAY_STALE_SECONDS + 2)
    assert pipe.tick()["webhooks_requeued"] == 0  # attempted: off the relay index
    pipe.webhooks_all()
    assert len(receiver.requests) == 1


def test_webhook_sweep_requeues_a_slow_message_and_the_receiver_gets_it_once(camp, pipe, hooked, receiver, later):
    assert camp.post("/contacts", json={"email": "slow@example.com"}).status == 201
    from campaigns.webhooks import dispatch

    later(dispatch.RELAY_STALE_SECONDS + 1)  # the first message is still waiting on the queue
    assert pipe.tick()["webhooks_requeued"] == 1
    assert pipe.queue_depth(HOOK_Q) == 2
    pipe.webhooks_all()
    assert len(receiver.requests) == 1, "the older generation's message is dropped"
    assert [(d["status"], d["attempts"]) for d in _deliveries(camp, hooked)] == [("delivered", 1)]


def test_webhook_retry_refused_by_the_queue_answers_202_not_queued_and_the_sweep_delivers(
        camp, pipe, hooked, receiver, later):
    assert camp.post("/contacts", json={"email": "again@example.com"}).status == 201
    pipe.webhooks_all()
    did = _deliveries(camp, hooked)[0]["id"]
    with sqs_fault(HOOK_Q, {1: "error"}):
        r = camp.post(f"/webhooks/{hooked}/deliveries/{did}/retry")
    assert r.status == 202, r.text
    assert r.json()["data"]["queued"] is False and r.json()["data"]["status"] == "pending"
    assert "queue" in r.json()["message"]
    pipe.webhooks_all()
    assert len(receiver.requests) == 1
    from campaigns.webhooks import dispatch

    later(dispatch.RELAY_STALE_SECONDS + 1)
    assert pipe.tick()["webhooks_requeued"] == 1
    pipe.webhooks_all()
    assert len(receiver.requests) == 2
    assert len({q["headers"]["webhook-id"] for q in receiver.requests}) == 1, "a redelivery keeps its webhook-id"
    assert _deliveries(camp, hooked)[0]["status"] == "delivered"


def test_the_key_anchor_names_its_bulk_for_24_hours_only(camp, later):
    from campaigns.sending import repository as repo
    from lambdakit.security import sha256_hex

    r = _bulk(camp, 2, key="bulk-anchor")
    bid = r.json()["data"]["bulk_id"]
    from tests.campaigns.conftest import ACCOUNT

    (item,) = [i for i in repo.table().query(f"ACCT#{ACCOUNT}#BULKKEY#{sha256_hex('bulk-anchor')}")[0]]
    assert repo.bulk_for_key(ACCOUNT, sha256_hex("bulk-anchor"), item["body_hash"]) == bid
    later(repo.KEY_SECONDS + 1)
    assert repo.bulk_for_key(ACCOUNT, sha256_hex("bulk-anchor"), item["body_hash"]) is None


def test_a_refused_dlq_copy_does_not_redeliver_a_dead_lettered_event(camp, pipe, hooked, receiver):
    """The last attempt failed: the delivery is recorded dead_lettered before the DLQ copy is sent,
    so SQS refusing that copy costs the copy (logged), not one more POST to the receiver."""
    import time

    from botocore.awsrequest import AWSResponse as Resp

    from lambdakit import aws

    receiver.default = 503
    dlq = os.environ.get("CAMPAIGNS_WEBHOOK_DLQ_URL", "")

    def refuse(model, params, **_):
        if json.loads(params.get("body") or b"{}").get("QueueUrl") != dlq:
            return None
        return Resp(dlq, 500, {}, None), {"Error": {"Code": "InternalError", "Message": "internal"},
                                          "ResponseMetadata": _meta(500)}

    events = aws.client("sqs").meta.events
    events.register("before-call.sqs.SendMessage", refuse, unique_id="dlq-refused")
    try:
        assert camp.post("/contacts", json={"email": "dead@example.com"}).status == 201
        for _ in range(12):
            pipe.webhooks_all()
            if pipe.queue_depth(HOOK_Q) == 0:
                break
            time.sleep(1.1)
    finally:
        events.unregister("before-call.sqs.SendMessage", unique_id="dlq-refused")
    from campaigns.settings import settings

    d = _deliveries(camp, hooked)[0]
    assert d["status"] == "dead_lettered" and d["attempts"] == settings().webhook_attempts, d
    assert len(receiver.requests) == settings().webhook_attempts, "no POST beyond the allowed attempts"
    assert pipe.queue_depth(HOOK_Q) == 0
