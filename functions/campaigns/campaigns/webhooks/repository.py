"""Webhooks and their delivery log in DynamoDB; the delivery queue in SQS.

- ``ACCT#{a}`` / ``WH#{id}``  webhook (name, url, events, secret, enabled; during a secret
  rotation's grace period also ``secret_previous`` and ``previous_secret_expires_at``)
- ``WH#{id}`` / ``D#{delivery_id}``  one delivery of one event to one webhook; gsi1
  (``WH#{id}#D`` / ``{created_at}#{delivery_id}``) lists them newest first. The item keeps the
  exact body bytes, so every retry sends (and signs) the same body. A delivery whose event is about
  a person is also on gsi2 (``ACCT#{a}#WHPERSON#{sha256(email)}`` / ``{webhook_id}#{delivery_id}``)
  so the contact's erasure finds its bodies with a key query and redacts them. A delivery queued
  but not yet attempted by a worker is on gsi3 (``WHRELAY#{shard}`` / ``{queued_at}#{webhook_id}#{id}``)
  with ``relay_seq``, the generation of its queue messages: the relay sweep queues again what
  stays there too long (``campaigns.webhooks.dispatch.relay_stale``).
- ``WHRELAY`` / ``MARK#{shard}``  the occupancy marker of a relay shard (``lambdakit.occupancy``):
  set before a delivery is put on the shard, cleared only by a sweep that found the shard empty.
  The sweep reads the eight markers in one BatchGetItem and queries only the marked shards.
"""
from __future__ import annotations

import json

from botocore.exceptions import BotoCoreError, ClientError

from lambdakit import aws, clock, occupancy
from lambdakit.cursors import decode_cursor, encode_cursor
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, NotFound
from lambdakit.security import sha256_hex

from ..settings import settings

DELIVERY_TTL_DAYS = 30
#: gsi3 partitions ``WHRELAY#{0..7}`` of the deliveries queued but not yet attempted (sharded:
#: every delivery passes through it, faster than one partition takes writes).
RELAY_PK = "WHRELAY"
RELAY_SHARDS = 8


def table() -> Table:
    return Table(settings().table_name)


#: The relay shards' occupancy markers, with what this process marked (reset with the settings).
markers = occupancy.Markers(table, owner=settings)


def _public(item: dict) -> dict:
    return {k: v for k, v in item.items() if k not in ("pk", "sk") and not k.startswith("gsi")}


# ---------------------------------------------------------------- webhooks
def list_webhooks(account_id: str) -> list[dict]:
    return [_public(i) for i in table().query_all(f"ACCT#{account_id}", sk_prefix="WH#", max_items=500)]


def get_webhook(account_id: str, webhook_id: str) -> dict | None:
    item = table().get(f"ACCT#{account_id}", f"WH#{webhook_id}")
    return _public(item) if item else None


def put_webhook(account_id: str, wh: dict) -> None:
    table().put_new({"pk": f"ACCT#{account_id}", "sk": f"WH#{wh['id']}", **wh}, fresh_key=True)


def update_webhook(account_id: str, webhook_id: str, changes: dict, *, expected_secret: str | None = None) -> dict:
    """Apply ``changes``; with ``expected_secret`` only while the stored secret is still that one
    (a secret rotation: two concurrent rotations cannot both keep the same previous secret)."""
    kw: dict = {}
    if expected_secret is not None:
        kw = {"condition": "#sec = :old", "names": {"#sec": "secret"}, "values": {":old": expected_secret}}
    try:
        return _public(table().update(f"ACCT#{account_id}", f"WH#{webhook_id}", set=changes, must_exist=True, **kw))
    except ConditionFailed:
        if expected_secret is not None and get_webhook(account_id, webhook_id):
            from lambdakit.errors import Conflict

            raise Conflict("The webhook's secret changed concurrently; try again", code="CONFLICT") from None
        raise NotFound("Webhook not found") from None


def delete_webhook(account_id: str, webhook_id: str) -> None:
    try:
        table().delete(f"ACCT#{account_id}", f"WH#{webhook_id}", condition="attribute_exists(pk)")
    except ConditionFailed:
        raise NotFound("Webhook not found") from None


# ---------------------------------------------------------------- deliveries
def _person_pk(account_id: str, email_l: str) -> str:
    return f"ACCT#{account_id}#WHPERSON#{sha256_hex(email_l)}"


def _shard(delivery_id: str) -> int:
    return int(sha256_hex(delivery_id)[:4], 16) % RELAY_SHARDS


def _relay_keys(d: dict, at: str) -> dict:
    """The relay index keys of a delivery; its shard is marked first (``mark_shard``)."""
    shard = _shard(d["id"])
    mark_shard(shard)
    return {"gsi3pk": f"{RELAY_PK}#{shard}", "gsi3sk": f"{at}#{d['webhook_id']}#{d['id']}"}


def mark_keys() -> list[tuple[str, str]]:
    """The occupancy markers of the relay shards, in shard order."""
    return [(RELAY_PK, f"MARK#{shard}") for shard in range(RELAY_SHARDS)]


def mark_shard(shard: int) -> None:
    markers.mark(mark_keys()[shard])


def create_delivery(d: dict, *, person: str | None = None, relay: bool = False) -> tuple[bool, dict | None]:
    """Insert a delivery; ``(False, existing)`` when this (event, webhook) already has one.
    ``person``: the lower-cased email the event is about (indexed for erasure). ``relay``: the
    delivery goes through the queue, so it is on the relay index (gsi3) until a worker attempts
    it (``relay_seq`` 0: the generation its messages carry)."""
    now = clock.now_ts()
    item = {"pk": f"WH#{d['webhook_id']}", "sk": f"D#{d['id']}", "gsi1pk": f"WH#{d['webhook_id']}#D",
            "gsi1sk": f"{d['created_at']}#{d['id']}", "ttl": int(now) + DELIVERY_TTL_DAYS * 86400, **d}
    if relay:
        item.update(_relay_keys(d, d["created_at"]), relay_seq=0)
    if person:
        item.update(gsi2pk=_person_pk(d["account_id"], person), gsi2sk=f"{d['webhook_id']}#{d['id']}")
    try:
        table().put_new(item)
        return True, None
    except ConditionFailed:
        return False, get_delivery(d["webhook_id"], d["id"])


def get_delivery(webhook_id: str, delivery_id: str) -> dict | None:
    item = table().get(f"WH#{webhook_id}", f"D#{delivery_id}", consistent=True)
    return _public(item) if item else None


def get_delivery_and_webhook(account_id: str, webhook_id: str, delivery_id: str) -> tuple[dict | None, dict | None]:
    """A queued delivery and its webhook in ONE consistent BatchGetItem (the delivery worker's read:
    both keys are in the message; issue 21, one round trip fewer than two GetItems)."""
    dk, wk = (f"WH#{webhook_id}", f"D#{delivery_id}"), (f"ACCT#{account_id}", f"WH#{webhook_id}")
    got = table().get_many([dk, wk], consistent=True)
    d, w = got.get(dk), got.get(wk)
    return (_public(d) if d else None), (_public(w) if w else None)


def update_delivery(webhook_id: str, delivery_id: str, *, set: dict, add: dict | None = None,
                    condition: str | None = None, names: dict | None = None, values: dict | None = None,
                    picked_up: bool = False) -> dict:
    """``picked_up``: a worker attempted it (or settled it): off the relay index."""
    return _public(table().update(f"WH#{webhook_id}", f"D#{delivery_id}", set=set, add=add, condition=condition,
                                  names=names, values=values, must_exist=True,
                                  remove=["gsi3pk", "gsi3sk"] if picked_up else None))


def requeue_delivery(webhook_id: str, delivery_id: str, *, from_status: str, set: dict) -> dict:
    """A manual retry: from ``from_status`` back to the queue (``set``), on the relay index again
    under a new ``relay_seq`` generation. ``ConditionFailed`` when the status moved meanwhile."""
    keys = _relay_keys({"id": delivery_id, "webhook_id": webhook_id}, clock.now_iso())
    return _public(table().update(f"WH#{webhook_id}", f"D#{delivery_id}", set={**set, **keys},
                                  add={"relay_seq": 1}, condition="#st = :st", names={"#st": "status"},
                                  values={":st": from_status}, must_exist=True))


def stale_relays(cutoff: str, limit: int = 100, marks: dict | None = None) -> list[dict]:
    """Deliveries on the relay index since before ``cutoff`` (never attempted since queued), at
    most ``limit`` per shard, oldest first. Only the marked shards are queried (``marks``: the
    markers read by the caller, else read here in one BatchGetItem). A marker old enough to clear
    has its shard queried without the cutoff (the stale items are the first ones of that
    ascending query, the same ``limit`` of them); found empty, the marker is cleared."""
    t = table()
    keys = mark_keys()
    if marks is None:
        marks = markers.read(keys)
    out: list[dict] = []
    for shard, key in enumerate(keys):
        mark = marks.get(key)
        if mark is None:
            continue
        if not occupancy.clearable(mark):
            items, _ = t.query(f"{RELAY_PK}#{shard}", index="gsi3", sk_lte=cutoff, limit=limit)
            occupancy.found(mark, key, len(items))
            out += [_public(i) for i in items]
            continue
        items, _ = t.query(f"{RELAY_PK}#{shard}", index="gsi3", limit=limit)
        if items:
            out += [_public(i) for i in items if i["gsi3sk"] <= cutoff]
        else:
            markers.clear(key, mark)
    return out


def take_relay(d: dict) -> int | None:
    """Move a delivery still on the relay index from its ``relay_seq`` generation to the next
    (its relay time to now), once per generation; the new seq, or ``None`` when a worker picked
    it up or another relayer moved it first."""
    keys = _relay_keys(d, clock.now_iso())
    try:
        new = table().update(f"WH#{d['webhook_id']}", f"D#{d['id']}", set={"gsi3sk": keys["gsi3sk"]},
                             add={"relay_seq": 1}, condition="attribute_exists(gsi3pk) AND relay_seq = :seq",
                             values={":seq": int(d.get("relay_seq") or 0)}, must_exist=True)
    except ConditionFailed:
        return None
    return int(new.get("relay_seq") or 0)


def list_deliveries(webhook_id: str, limit: int, cursor: str | None) -> tuple[list[dict], str | None]:
    start = decode_cursor(cursor)  # 400 INVALID_CURSOR unless issued for this route, filters and caller
    items, last = table().query(f"WH#{webhook_id}#D", index="gsi1", limit=limit, cursor=start, forward=False)
    return [_public(i) for i in items], encode_cursor(last)


def erase_person(account_id: str, email_l: str, redacted_body) -> int:
    """Redact the stored bodies of every delivery about ``email_l`` (data-protection erasure):
    ``redacted_body(item) -> str`` gives the new body; the person index entry is removed. The
    delivery log keeps status, attempts and codes (aggregates), not the personal data."""
    n = 0
    for item in table().iter_query(_person_pk(account_id, email_l), index="gsi2"):
        try:
            table().update(item["pk"], item["sk"], set={"body": redacted_body(item), "erased_at": clock.now_iso()},
                           remove=["gsi2pk", "gsi2sk"], must_exist=True, return_values="NONE")
            n += 1
        except ConditionFailed:  # expired in between
            continue
    return n


# ---------------------------------------------------------------- queue
class QueueFailed(RuntimeError):
    """SQS did not take every message (an error answer after botocore's retries, or ``Failed``
    entries); ``sent`` holds the indexes it took."""

    def __init__(self, failed: int, sent: set[int]) -> None:
        super().__init__(f"{failed} webhook messages not queued")
        self.failed, self.sent = failed, sent


def _sqs():
    return aws.client("sqs")


def enqueue(messages: list[dict], delay_seconds: int = 0) -> None:
    """Queue every message (``SendMessageBatch`` calls of ten) or raise ``QueueFailed``; a
    refused call stops the sending (the rest is left to the relay sweep)."""
    url = settings().webhook_queue_url
    taken: set[int] = set()
    for i in range(0, len(messages), 10):
        entries = [{"Id": str(i + n), "MessageBody": json.dumps(m, separators=(",", ":")),
                    **({"DelaySeconds": delay_seconds} if delay_seconds else {})}
                   for n, m in enumerate(messages[i:i + 10])]
        try:
            resp = _sqs().send_message_batch(QueueUrl=url, Entries=entries)
        except (ClientError, BotoCoreError):
            break
        taken.update(int(e["Id"]) for e in resp.get("Successful") or [])
    if len(taken) < len(messages):
        raise QueueFailed(len(messages) - len(taken), taken)


def change_visibility(receipt_handle: str, seconds: int) -> None:
    _sqs().change_message_visibility(QueueUrl=settings().webhook_queue_url, ReceiptHandle=receipt_handle,
                                     VisibilityTimeout=max(0, min(int(seconds), 43200)))


def send_to_dlq(message: dict) -> None:
    url = settings().webhook_dlq_url
    if not url:
        raise RuntimeError("webhook DLQ not configured")
    _sqs().send_message(QueueUrl=url, MessageBody=json.dumps(message, separators=(",", ":")))
