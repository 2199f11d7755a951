"""Event emission: one delivery record and one SQS message per (event, subscribed webhook); the
redaction of the bodies about a person when the contact is erased (``erase_person``).

``emit(account_id, kind, data)`` is the interface the rest of the service calls (through
``campaigns.events``). With ``event_key`` the emission is idempotent: emitting the same key again
(a retried worker) neither creates a second delivery nor a second ``webhook-id``.

Outbox (issue 23 rule 4): a delivery is recorded before it is queued, on a relay index that the
worker's first attempt takes it off. A delivery recorded but never queued (the queue refused it,
a crash in between) is not lost: ``relay_stale``, run by the dispatcher's one-minute tick, queues
it again after ``RELAY_STALE_SECONDS``. Delivery stays at-least-once with a stable ``webhook-id``.
"""
from __future__ import annotations

import datetime as dt
import json
import logging

from lambdakit import clock, ids
from lambdakit.observability import count as metric
from lambdakit.security import sha256_hex

from . import repository as repo

logger = logging.getLogger("campaigns.webhooks")
#: A delivery recorded for the queue and not attempted for this long is queued again.
RELAY_STALE_SECONDS = 300

EVENT_KINDS = ("campaign.created", "campaign.sent", "campaign.opened", "campaign.clicked", "contact.subscribed",
               "contact.unsubscribed", "email.bounced", "email.delivered")
TEST_EVENT = "webhook.test"


def body_of(kind: str, data: dict, timestamp: str) -> str:
    """The exact JSON text that is POSTed and signed."""
    return json.dumps({"event": kind, "timestamp": timestamp, "data": data}, separators=(",", ":"),
                      ensure_ascii=False, default=str)


PERSON_FIELDS = ("contact_email", "email", "recipient", "recipient_email", "to")


def person_of(data: dict) -> str | None:
    """The (lower-cased) email of the person an event's data is about, if any: deliveries carrying
    it are indexed by person so the contact's erasure can find and redact them."""
    for k in PERSON_FIELDS:
        v = data.get(k)
        if isinstance(v, str) and "@" in v:
            return v.strip().lower()
    return None


def erase_person(account_id: str, email: str) -> int:
    """Redact the delivery bodies about ``email`` (contact erasure). The redacted body keeps the
    event kind and timestamp (a pending retry still delivers a well-formed, signed event with the
    same webhook-id) and replaces ``data`` with ``{"erased": true}``."""
    def redacted(item: dict) -> str:
        try:
            ts = json.loads(item.get("body") or "{}").get("timestamp") or item.get("created_at")
        except ValueError:
            ts = item.get("created_at")
        return body_of(item.get("event") or "", {"erased": True}, str(ts or ""))

    return repo.erase_person(account_id, email.strip().lower(), redacted)


def new_delivery(account_id: str, webhook: dict, kind: str, body: str, *, delivery_id: str | None = None) -> dict:
    now = clock.now_iso()
    return {"id": delivery_id or ids.sortable_id().lower(), "account_id": account_id, "webhook_id": webhook["id"],
            "event": kind, "body": body, "status": "pending", "attempts": 0, "series_attempts": 0,
            "last_status_code": None, "last_latency_ms": None, "last_error": None, "created_at": now,
            "updated_at": now}


def emit_many(account_id: str, events: list[tuple[str, dict, str | None]]) -> int:
    """Emit ``(kind, data, event_key)`` events; returns the number of deliveries recorded for
    the queue. A queue failure is not the caller's: the deliveries are recorded (on the relay
    index) and ``relay_stale`` queues them later."""
    if not events:
        return 0
    hooks = [w for w in repo.list_webhooks(account_id) if w.get("enabled", True)]
    if not hooks:
        return 0
    queue: list[dict] = []
    for kind, data, key in events:
        subs = [w for w in hooks if kind in (w.get("events") or [])]
        if not subs:
            continue
        ts = clock.now_iso()
        body = body_of(kind, data, ts)
        person = person_of(data)
        for w in subs:
            did = sha256_hex(f"{key}|{w['id']}")[:26] if key else None
            d = new_delivery(account_id, w, kind, body, delivery_id=did)
            created, existing = repo.create_delivery(d, person=person, relay=True)
            seq: int | None = 0
            if not created:
                # A retried emitter: the delivery, if still never attempted, is queued again under
                # a new generation (a message of the old one, if queued after all, is dropped).
                seq = None
                if (existing and existing.get("status") == "pending" and not existing.get("attempts")
                        and existing.get("relay_seq") is not None):
                    seq = repo.take_relay(existing)
            if seq is not None:
                queue.append({"account_id": account_id, "webhook_id": w["id"], "delivery_id": d["id"], "seq": seq})
    try:
        repo.enqueue(queue)
    except repo.QueueFailed as exc:
        logger.warning("webhook deliveries recorded but not queued; the relay sweep queues them",
                       extra={"account_id": account_id, "not_queued": exc.failed})
    return len(queue)


def mark_keys() -> list[tuple[str, str]]:
    """The occupancy markers of the relay shards (read by the tick with the other relays')."""
    return repo.mark_keys()


def relay_stale(limit: int = 100, marks: dict | None = None) -> int:
    """One sweep (the dispatcher's tick): queue again the deliveries recorded for the queue but
    not attempted within ``RELAY_STALE_SECONDS`` (an SQS failure, a crash before the enqueue, a
    lost message). Each moves to a new ``relay_seq`` first: the worker drops messages of an older
    generation, so one delivery never runs two retry series. Counted in
    ``WebhookDeliveriesRequeued``; returns how many were queued. ``marks``: the shards' occupancy
    markers read by the tick (``mark_keys``), else read here."""
    cutoff = clock.iso(clock.now() - dt.timedelta(seconds=RELAY_STALE_SECONDS))
    msgs = []
    for d in repo.stale_relays(cutoff, limit, marks):
        seq = repo.take_relay(d)
        if seq is not None:
            msgs.append({"account_id": d["account_id"], "webhook_id": d["webhook_id"], "delivery_id": d["id"],
                         "seq": seq})
    if not msgs:
        return 0
    try:
        repo.enqueue(msgs)
        n = len(msgs)
    except repo.QueueFailed as exc:
        n = len(exc.sent)
        logger.warning("webhook relay sweep: the queue refused deliveries; the next sweep retries",
                       extra={"not_queued": exc.failed})
    if n:
        metric("WebhookDeliveriesRequeued", n)
    return n


def emit(account_id: str, kind: str, data: dict, *, event_key: str | None = None) -> int:
    if kind not in EVENT_KINDS:
        raise ValueError(f"unknown event kind {kind}")
    return emit_many(account_id, [(kind, data, event_key)])
