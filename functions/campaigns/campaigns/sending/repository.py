"""Send state in DynamoDB and the send queue in SQS.

- ``SEND#{send_id}`` / ``R#{rkey}``  one recipient of one send (campaign, bulk, single or test):
  written with ``attribute_not_exists`` *before* the mail goes out (status ``claimed``), then
  ``sent``/``skipped``/``failed``/``bounced``. Redeliveries find it and never send again.
- ``SEND#{send_id}`` / ``B#{batch_no}``  a batch whose counters were applied (exactly once,
  in the same transaction as the counter updates).
- ``BULK#{bulk_id}`` / ``META``  a bulk send: content, totals and progress counters.
- ``ACCT#{a}#OUTBOX`` / ``{ulid}``  a sandbox message; gsi1 by recipient, gsi2 by campaign/bulk.
"""
from __future__ import annotations

import json

from lambdakit import aws, clock
from lambdakit.ddb import Table, decode_cursor, encode_cursor
from lambdakit.errors import ConditionFailed, Contention, ValidationFailed

from ..counters import repository as counters
from ..privacy.repository import erasure_pk
from ..settings import settings


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
    moved it. A condition failure is confirmed by reading the record: already in ``status`` with
    our ``fields`` is our own write whose answer was lost (True); still in an allowed status means
    the failure was not the status, so the move is tried once more; else another event moved it."""
    cond = "attribute_exists(pk) AND #st IN (" + ", ".join(f":f{i}" for i in range(len(allowed_from))) + ")"
    for _try in range(2):
        try:
            table().update(f"SEND#{send_id}", f"R#{rkey}", set={"status": status, **fields}, condition=cond,
                           names={"#st": "status"}, values={f":f{i}": s for i, s in enumerate(allowed_from)},
                           return_values="NONE")
            return True
        except ConditionFailed:
            cur = get_recipient(send_id, rkey)
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
def put_bulk(bulk: dict) -> None:
    table().put_new({"pk": f"BULK#{bulk['id']}", "sk": "META", "ttl": _ttl(settings().send_record_ttl_days), **bulk},
                    fresh_key=True)


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


# ---------------------------------------------------------------- outbox (sandbox)
def put_outbox(account_id: str, entry: dict) -> None:
    mid = entry["id"]
    item = {"pk": f"ACCT#{account_id}#OUTBOX", "sk": mid, "gsi1pk": f"ACCT#{account_id}#OUTBOX#TO#{entry['to'].lower()}",
            "gsi1sk": mid, "ttl": _ttl(settings().outbox_ttl_days), **entry}
    if entry.get("campaign_id"):
        item.update(gsi2pk=f"ACCT#{account_id}#OUTBOX#C#{entry['campaign_id']}", gsi2sk=mid)
    elif entry.get("bulk_id"):
        item.update(gsi2pk=f"ACCT#{account_id}#OUTBOX#B#{entry['bulk_id']}", gsi2sk=mid)
    table().put(item)


def list_outbox(account_id: str, *, to: str | None, campaign_id: str | None, bulk_id: str | None, limit: int,
                cursor: str | None) -> tuple[list[dict], str | None]:
    try:
        start = decode_cursor(cursor)
    except ValueError:
        raise ValidationFailed("Invalid cursor", fields={"cursor": "Invalid cursor"}) from None
    if campaign_id:
        pk, index = f"ACCT#{account_id}#OUTBOX#C#{campaign_id}", "gsi2"
    elif bulk_id:
        pk, index = f"ACCT#{account_id}#OUTBOX#B#{bulk_id}", "gsi2"
    elif to:
        pk, index = f"ACCT#{account_id}#OUTBOX#TO#{to.lower()}", "gsi1"
    else:
        pk, index = f"ACCT#{account_id}#OUTBOX", None
    from boto3.dynamodb.conditions import Attr

    flt = None
    if to and index != "gsi1":
        flt = Attr("to").eq(to) | Attr("to_lc").eq(to.lower())
    items, last = table().query(pk, index=index, limit=limit, cursor=start, forward=False, filter=flt)
    return [_public(i) for i in items], encode_cursor(last)


# ---------------------------------------------------------------- send queue
def enqueue(messages: list[dict]) -> None:
    url = settings().send_queue_url
    sqs = aws.client("sqs")
    for i in range(0, len(messages), 10):
        chunk = messages[i:i + 10]
        entries = [{"Id": str(n), "MessageBody": json.dumps(m, separators=(",", ":"), default=str)}
                   for n, m in enumerate(chunk)]
        resp = sqs.send_message_batch(QueueUrl=url, Entries=entries)
        if resp.get("Failed"):
            raise RuntimeError(f"{len(resp['Failed'])} send messages not queued")


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


def enqueue_delayed(message: dict, delay_seconds: int) -> None:
    aws.client("sqs").send_message(QueueUrl=settings().send_queue_url, DelaySeconds=max(0, min(900, delay_seconds)),
                                   MessageBody=json.dumps(message, separators=(",", ":"), default=str))
