"""Send state in DynamoDB and the send queue in SQS.

- ``SEND#{send_id}`` / ``R#{rkey}``  one recipient of one send (campaign, bulk, single or test):
  written with ``attribute_not_exists`` *before* the mail goes out (status ``claimed``), then
  ``sent``/``skipped``/``failed``/``bounced``. Redeliveries find it and never send again.
- ``SEND#{send_id}`` / ``B#{batch_no}``  a batch whose counters were applied (exactly once,
  in the same transaction as the counter updates).
- ``BULK#{bulk_id}`` / ``META``  a bulk send: content, totals and progress counters; while its
  outbox has rows, on gsi3 ``BULKRELAY`` / ``{bulk_id}`` with a relay lease.
- ``BULKRELAY`` / ``MARK``  the occupancy marker of the relay index (``lambdakit.occupancy``):
  set before a bulk's META goes on it; the tick queries the index only while it is set.
- ``BULK#{bulk_id}`` / ``Q#{batch_no:06d}``  the outbox row of one batch not yet queued
  (recipients, delay), deleted once SQS took its message (``campaigns.sending.relay``).
- The sandbox outbox: ``campaigns.sending.outbox``.
"""
from __future__ import annotations

import json
import logging

from botocore.exceptions import BotoCoreError, ClientError

from lambdakit import aws, clock, occupancy
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, Contention, ValidationFailed

from ..counters import repository as counters
from ..privacy.repository import erasure_pk
from ..settings import settings

logger = logging.getLogger("campaigns.sending")


def table() -> Table:
    return Table(settings().table_name)


def _ttl(days: int) -> int:
    return int(clock.now_ts()) + days * 86400


def _public(item: dict) -> dict:
    return {k: v for k, v in item.items() if k not in ("pk", "sk", "ttl") and not k.startswith("gsi")}


# ---------------------------------------------------------------- recipients
def claim(send_id: str, rkey: str, record: dict) -> dict | None:
    """Create the recipient record; ``None`` if claimed now, else the existing record."""
    item = {"pk": f"SEND#{send_id}", "sk": f"R#{rkey}", "send_id": send_id, "rkey": rkey, "status": "claimed",
            "claimed_at": clock.now_iso(), "ttl": _ttl(settings().send_record_ttl_days), **record}
    if record.get("account_id") and record.get("email"):
        # gsi1 by address: data-protection erasure finds every record of a person (campaigns.privacy).
        item["gsi1pk"] = erasure_pk(record["account_id"], record["email"])
        item["gsi1sk"] = f"{send_id}#{rkey}"
    for _try in range(2):
        try:
            table().put_new(item)
            return None
        except ConditionFailed:
            # Confirm the cause (issue 23 rule 2): only a record read back is someone's claim;
            # an absent one means the condition failure was not a claim, so claim again.
            existing = get_recipient(send_id, rkey)
            if existing:
                return existing
    raise _unconfirmed("The recipient could not be claimed, please retry")


def _unconfirmed(message: str) -> Contention:
    """A condition failure whose cause the read-back does not show, twice: 503, retry later."""
    return Contention(message, reasons=["ConditionUnconfirmed"])


def finish(send_id: str, rkey: str, status: str, **fields) -> None:
    table().update(f"SEND#{send_id}", f"R#{rkey}", set={"status": status, **fields})


def mark_recipient(send_id: str, rkey: str, *, set: dict | None = None, remove: list[str] | None = None) -> None:
    """Set or remove fields of an existing recipient record (the unsubscribe link's own marks)."""
    from lambdakit.errors import ConditionFailed as _Gone

    try:
        table().update(f"SEND#{send_id}", f"R#{rkey}", set=set, remove=remove, must_exist=True, return_values="NONE")
    except _Gone:
        pass  # expired (TTL) or erased meanwhile: nothing to mark


def get_recipient(send_id: str, rkey: str) -> dict | None:
    item = table().get(f"SEND#{send_id}", f"R#{rkey}", consistent=True)
    return _public(item) if item else None


def mark_first(send_id: str, rkey: str, attr: str, value: str) -> bool:
    """Set ``attr`` on the recipient record once; True only for the first caller (unique counts)."""
    try:
        table().update(f"SEND#{send_id}", f"R#{rkey}", set={attr: value},
                       condition="attribute_exists(pk) AND attribute_not_exists(#a)", names={"#a": attr},
                       return_values="NONE")
        return True
    except ConditionFailed:
        return False


def set_recipient_status(send_id: str, rkey: str, status: str, allowed_from: list[str], **fields) -> bool:
    """Move the recipient record from one of ``allowed_from`` to ``status``; True when this call
    moved it. A condition failure is confirmed from the record as the failed write found it (the
    failure's ``ALL_OLD`` image; read consistently only when the failure carries none): already in
    ``status`` with our ``fields`` is our own write whose answer was lost (True); still in an allowed
    status means the failure was not the status, so the move is tried once more; else another event
    moved it (a redelivered SES event: one read fewer than reading the record again)."""
    cond = "attribute_exists(pk) AND #st IN (" + ", ".join(f":f{i}" for i in range(len(allowed_from))) + ")"
    for _try in range(2):
        try:
            table().update(f"SEND#{send_id}", f"R#{rkey}", set={"status": status, **fields}, condition=cond,
                           names={"#st": "status"}, values={f":f{i}": s for i, s in enumerate(allowed_from)},
                           return_values="NONE")
            return True
        except ConditionFailed as exc:
            cur = _public(exc.item) if exc.item else get_recipient(send_id, rkey)
            if not cur:
                return False
            if cur.get("status") == status and all(cur.get(k) == v for k, v in fields.items()):
                return True
            if cur.get("status") not in allowed_from:
                return False
    raise _unconfirmed("The recipient could not be updated, please retry")


# ---------------------------------------------------------------- batch completion
def complete_batch(send_id: str, batch_no: int, *, account_id: str, owner: tuple[str, str], owner_add: dict,
                   counts: dict[str, int], campaign_id: str | None, provider: str) -> bool:
    """Mark the batch done and add its counters, exactly once. False if it was already applied."""
    ops: list[dict] = [
        {"put": {"pk": f"SEND#{send_id}", "sk": f"B#{batch_no}", "done_at": clock.now_iso(),
                 "ttl": _ttl(settings().send_record_ttl_days)},
         "condition": "attribute_not_exists(pk)"},
        {"update": owner, "add": {k: v for k, v in owner_add.items() if v} or {"batches_done": 0}},
    ]
    ops += counters.day_ops(account_id, clock.today(), counts, campaign_id=campaign_id, provider=provider)
    for _try in range(2):
        try:
            table().transact(ops)
            return True
        except ConditionFailed as exc:
            if not (exc.reasons and exc.reasons[0] == "ConditionalCheckFailed"):
                raise
            # Confirm the cause: only a batch marker read back means the batch was applied.
            if table().get(f"SEND#{send_id}", f"B#{batch_no}", consistent=True):
                return False
    raise _unconfirmed("The batch could not be completed, please retry")


def add_stats(owner: tuple[str, str], add: dict) -> None:
    """Add to the ``st_*`` counters of a send's owner item (a campaign's or a bulk's ``META``, as
    ``complete_batch`` does); an owner read back as deleted is skipped, else the add is retried."""
    for _try in range(2):
        try:
            table().update(*owner, add=add, must_exist=True, return_values="NONE")
            return
        except ConditionFailed:
            if not table().get(*owner, consistent=True):
                return
    raise _unconfirmed("The stats could not be updated, please retry")


# ---------------------------------------------------------------- bulk
#: gsi3 partition of the bulk sends whose outbox still has rows to queue (``sending.relay``).
RELAY_PK = "BULKRELAY"
#: Its occupancy marker.
RELAY_MARK = (RELAY_PK, "MARK")
#: The marker's writer (``lambdakit.occupancy``), with what this process marked.
markers = occupancy.Markers(table, owner=settings)
#: How long an Idempotency-Key's anchor names its bulk (the key's own 24 h).
KEY_SECONDS = 24 * 3600


def _row_sk(batch_no: int) -> str:
    return f"Q#{int(batch_no):06d}"


def _key_item(account_id: str, key_hash: str) -> tuple[str, str]:
    return (f"ACCT#{account_id}#BULKKEY#{key_hash}", "K")


def put_bulk(bulk: dict, rows: list[dict], lease_until: str, key: tuple[str, str] | None = None) -> str | None:
    """Write a bulk send with its outbox: one row per batch (``BULK#{id}`` / ``Q#{batch_no}``:
    batch number, recipients, delay), then ``META``, the commit point: rows without a META are
    never queued and expire with their TTL. META carries the relay marker (gsi3
    ``BULKRELAY``/id, ``relay_pending``, a lease the writer holds) until every row is queued.

    ``key`` (hashes of the request's Idempotency-Key and body): META is committed together with
    the key's anchor (valid 24 h, as the key), so a request re-run under the same key after a
    crash finds the bulk it made. Returns ``None`` when written, else the id of the bulk the key
    already made (``ValidationFailed`` when that was another body)."""
    pk, ttl = f"BULK#{bulk['id']}", _ttl(settings().send_record_ttl_days)
    # Before META (with the relay index keys) is written; at every bulk (one write beside its
    # rows and META), so a bulk request's calls never depend on what its process did before.
    markers.mark(RELAY_MARK, reuse=False)
    table().batch_write(puts=[{"pk": pk, "sk": _row_sk(r["batch_no"]), "ttl": ttl, **r} for r in rows])
    meta = {"pk": pk, "sk": "META", "ttl": ttl, "gsi3pk": RELAY_PK, "gsi3sk": bulk["id"], "relay_pending": True,
            "relay_lease_until": lease_until, **bulk}
    if not key:
        table().put_new(meta, fresh_key=True)
        return None
    kpk, ksk = _key_item(bulk["account_id"], key[0])
    now = int(clock.now_ts())
    anchor = {"pk": kpk, "sk": ksk, "bulk_id": bulk["id"], "body_hash": key[1], "until": now + KEY_SECONDS,
              "ttl": now + 2 * KEY_SECONDS}
    try:
        table().transact([{"put": meta, "condition": "attribute_not_exists(pk)"},
                          {"put": anchor, "condition": "attribute_not_exists(pk) OR #u < :now",
                           "names": {"#u": "until"}, "values": {":now": now}}], fresh=(0,))
        return None
    except ConditionFailed:
        prior = bulk_for_key(bulk["account_id"], *key)
        if prior:
            return None if prior == bulk["id"] else prior
    raise _unconfirmed("The bulk send could not be stored, please retry")


def bulk_for_key(account_id: str, key_hash: str, body_hash: str) -> str | None:
    """The bulk an Idempotency-Key made within its 24 h; ``ValidationFailed`` for another body."""
    item = table().get(*_key_item(account_id, key_hash), consistent=True)
    if not item or int(item.get("until") or 0) < int(clock.now_ts()):
        return None
    if item.get("body_hash") != body_hash:
        raise ValidationFailed("Idempotency-Key was used with a different request",
                               fields={"Idempotency-Key": "Already used with a different request body"})
    return item.get("bulk_id")


def outbox_rows(bulk_id: str, limit: int | None = None) -> list[dict]:
    """The bulk's batches not yet queued, in batch order (the first ``limit`` of them)."""
    if limit:
        return [_public(i) for i in table().query(f"BULK#{bulk_id}", sk_prefix="Q#", consistent=True, limit=limit)[0]]
    return [_public(i) for i in table().iter_query(f"BULK#{bulk_id}", sk_prefix="Q#", consistent=True)]


def rows_queued(bulk_id: str, batch_nos: list[int]) -> None:
    """Delete the outbox rows of batches SQS took."""
    table().batch_write(deletes=[(f"BULK#{bulk_id}", _row_sk(n)) for n in batch_nos])


def relaying_bulks(limit: int = 50, marks: dict | None = None) -> list[dict]:
    """The bulks on the relay index (at most ``limit``), queried only while its marker is set
    (``marks``: the markers read by the caller, else read here); a marker old enough to clear
    whose index is found empty is cleared."""
    if marks is None:
        marks = markers.read([RELAY_MARK])
    mark = marks.get(RELAY_MARK)
    if mark is None:
        return []
    items, _ = table().query(RELAY_PK, index="gsi3", limit=limit)
    occupancy.found(mark, RELAY_MARK, len(items))
    if not items and occupancy.clearable(mark):
        markers.clear(RELAY_MARK, mark)
    return [_public(i) for i in items]


def take_relay(bulk_id: str, now: str, until: str) -> bool:
    """Take the relay lease of a bulk whose lease ran out; False when another relayer holds it
    (or the relay ended): a missed take only waits for the next tick."""
    try:
        table().update(f"BULK#{bulk_id}", "META", set={"relay_lease_until": until},
                       condition="relay_pending = :t AND relay_lease_until < :now",
                       values={":t": True, ":now": now}, must_exist=True, return_values="NONE")
        return True
    except ConditionFailed:
        return False


def release_relay(bulk_id: str, now: str) -> None:
    """Give the lease back (rows are left): the next tick resumes at once."""
    table().update(f"BULK#{bulk_id}", "META", set={"relay_lease_until": now}, must_exist=True, return_values="NONE")


def end_relay(bulk_id: str) -> None:
    """Every row is queued: the bulk leaves the relay index."""
    table().update(f"BULK#{bulk_id}", "META", set={"relay_pending": False}, remove=["gsi3pk", "gsi3sk"],
                   must_exist=True, return_values="NONE")


def get_bulk(bulk_id: str) -> dict | None:
    item = table().get(f"BULK#{bulk_id}", "META")
    return _public(item) if item else None


def bulk_key(bulk_id: str) -> tuple[str, str]:
    return (f"BULK#{bulk_id}", "META")


def finish_bulk_if_done(bulk_id: str) -> bool:
    """Complete the bulk once all its batches are done; False when the bulk read back is already
    completed or not done yet (a condition failure is confirmed before it is believed)."""
    for _try in range(2):
        try:
            table().update(f"BULK#{bulk_id}", "META", set={"status": "completed", "completed_at": clock.now_iso()},
                           condition="#st <> :done AND batches_done >= batches_total", names={"#st": "status"},
                           values={":done": "completed"}, return_values="NONE")
            return True
        except ConditionFailed:
            cur = table().get(f"BULK#{bulk_id}", "META", consistent=True)
            if (not cur or cur.get("status") == "completed"
                    or int(cur.get("batches_done") or 0) < int(cur.get("batches_total") or 0)):
                return False
    raise _unconfirmed("The bulk could not be completed, please retry")


# ---------------------------------------------------------------- send queue
class QueueFailed(RuntimeError):
    """SQS did not take every message: an error answer (after botocore's own retries) or
    ``Failed`` entries of ``SendMessageBatch``. ``sent`` holds the indexes it did take."""

    def __init__(self, failed: int, sent: set[int]) -> None:
        super().__init__(f"{failed} send messages not queued")
        self.failed, self.sent = failed, sent


def send_batch(messages: list[dict], delays: list[int] | None = None) -> set[int]:
    """Send ``messages`` (``delays``: seconds each stays invisible, at most 900) in
    ``SendMessageBatch`` calls of ten; returns the indexes SQS took. A refused call stops the
    sending (the queue is failing: the rest waits for a later try); ``Failed`` entries do not."""
    url = settings().send_queue_url
    sqs = aws.client("sqs")
    taken: set[int] = set()
    for i in range(0, len(messages), 10):
        entries = [{"Id": str(i + n), "MessageBody": json.dumps(m, separators=(",", ":"), default=str),
                    **({"DelaySeconds": max(0, min(900, int(delays[i + n])))} if delays and delays[i + n] else {})}
                   for n, m in enumerate(messages[i:i + 10])]
        try:
            resp = sqs.send_message_batch(QueueUrl=url, Entries=entries)
        except (ClientError, BotoCoreError) as exc:
            logger.warning("send queue refused a batch", extra={"error": str(exc)[:200]})
            break
        taken.update(int(e["Id"]) for e in resp.get("Successful") or [])
    return taken


def enqueue(messages: list[dict]) -> None:
    """Queue every message or raise ``QueueFailed`` (naming the ones taken). The callers'
    messages are safe to queue twice (every send-queue message type is idempotent)."""
    taken = send_batch(messages)
    if len(taken) < len(messages):
        raise QueueFailed(len(messages) - len(taken), taken)


def change_visibility(receipt_handle: str, seconds: int) -> None:
    aws.client("sqs").change_message_visibility(QueueUrl=settings().send_queue_url, ReceiptHandle=receipt_handle,
                                                VisibilityTimeout=max(0, min(int(seconds), 43200)))


def release_claim(send_id: str, rkey: str) -> None:
    """Undo a claim whose mail was not sent (provider throttled), so a retry can send it."""
    try:
        table().delete(f"SEND#{send_id}", f"R#{rkey}", condition="#st = :c", names={"#st": "status"},
                       values={":c": "claimed"})
    except ConditionFailed:
        pass


def rate_hit(subject: str, limit: int, cost: int):
    from lambdakit.ratelimit import hit

    return hit(table(), subject, max(1, int(limit)), 1, cost=cost)
