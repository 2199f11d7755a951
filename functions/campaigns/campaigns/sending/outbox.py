"""The sandbox outbox in DynamoDB (data access): every message the sandbox provider "sent".

- ``ACCT#{a}#OUTBOX`` / ``{id}``  the message's fields (``GET /email/outbox``) and its MIME bytes,
  the very bytes the SES provider would send (``lambdakit.mime``), zlib-compressed in ``raw_z``
  when they fit one piece (any message without big attachments); gsi1 by recipient, gsi2 by
  campaign or bulk.
- ``ACCT#{a}#OUTBOX#RAW#{id}`` / ``P#{n:04d}``  the pieces of a bigger message (``raw_pieces`` on
  the message says how many), each under 300 KB (DynamoDB items stop at 400 KB). They sit on the
  person index (gsi1 ``erasure_pk``), so an erasure deletes them with the rest.

Everything expires with the outbox (``CAMPAIGNS_OUTBOX_TTL_DAYS``).
"""
from __future__ import annotations

from lambdakit import clock
from lambdakit.conditions import Attr
from lambdakit.cursors import decode_cursor, encode_cursor
from lambdakit.ddb import Table
from lambdakit.mime import pack, unpack

from ..privacy.repository import erasure_pk
from ..settings import settings

_HIDDEN = ("pk", "sk", "ttl", "raw_z", "raw_pieces")


def table() -> Table:
    return Table(settings().table_name)


def _public(item: dict) -> dict:
    return {k: v for k, v in item.items() if k not in _HIDDEN and not k.startswith("gsi")}


def put_outbox(account_id: str, entry: dict, raw: bytes) -> None:
    """Record one sandbox message with its bytes. The pieces go first: a message is listed only
    once all of its bytes are stored."""
    mid = entry["id"]
    ttl = int(clock.now_ts()) + settings().outbox_ttl_days * 86400
    item = {"pk": f"ACCT#{account_id}#OUTBOX", "sk": mid, "gsi1pk": f"ACCT#{account_id}#OUTBOX#TO#{entry['to'].lower()}",
            "gsi1sk": mid, "ttl": ttl, **entry}
    if entry.get("campaign_id"):
        item.update(gsi2pk=f"ACCT#{account_id}#OUTBOX#C#{entry['campaign_id']}", gsi2sk=mid)
    elif entry.get("bulk_id"):
        item.update(gsi2pk=f"ACCT#{account_id}#OUTBOX#B#{entry['bulk_id']}", gsi2sk=mid)
    pieces = pack(raw)
    if len(pieces) == 1:
        item["raw_z"] = pieces[0]
    else:
        item["raw_pieces"] = len(pieces)
        table().batch_write(puts=[
            {"pk": f"ACCT#{account_id}#OUTBOX#RAW#{mid}", "sk": f"P#{n:04d}", "piece": p, "ttl": ttl,
             "gsi1pk": erasure_pk(account_id, entry["to"]), "gsi1sk": f"OUTBOXRAW#{mid}#{n:04d}"}
            for n, p in enumerate(pieces)])
    table().put(item)


def get_raw(account_id: str, message_id: str) -> bytes | None:
    """The MIME bytes of one sandbox message of the account; ``None`` when there is none."""
    if not message_id or len(message_id) > 80:
        return None
    item = table().get(f"ACCT#{account_id}#OUTBOX", message_id, consistent=True)
    if not item:
        return None
    if item.get("raw_z") is not None:
        return unpack([item["raw_z"]])
    n = int(item.get("raw_pieces") or 0)
    if not n:
        return None  # recorded before raw bytes were kept (issue 30)
    parts = table().query_all(f"ACCT#{account_id}#OUTBOX#RAW#{message_id}", consistent=True, max_items=n)
    if len(parts) != n:
        return None
    return unpack(p["piece"] for p in sorted(parts, key=lambda p: p["sk"]))


def list_outbox(account_id: str, *, to: str | None, campaign_id: str | None, bulk_id: str | None, limit: int,
                cursor: str | None) -> tuple[list[dict], str | None]:
    start = decode_cursor(cursor)  # 400 INVALID_CURSOR unless issued for this route, filters and caller
    if campaign_id:
        pk, index = f"ACCT#{account_id}#OUTBOX#C#{campaign_id}", "gsi2"
    elif bulk_id:
        pk, index = f"ACCT#{account_id}#OUTBOX#B#{bulk_id}", "gsi2"
    elif to:
        pk, index = f"ACCT#{account_id}#OUTBOX#TO#{to.lower()}", "gsi1"
    else:
        pk, index = f"ACCT#{account_id}#OUTBOX", None
    flt = Attr("to").eq(to) | Attr("to_lc").eq(to.lower()) if to and index != "gsi1" else None
    items, last = table().query(pk, index=index, limit=limit, cursor=start, forward=False, filter=flt)
    return [_public(i) for i in items], encode_cursor(last)
