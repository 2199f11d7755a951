"""Data access of the email queue (the only mail module touching DynamoDB, SQS, S3 and SES).

Items (single table ``INTERNSHIPS_TABLE_NAME``):

* email: ``pk="EMAILQ#<id>"``, ``sk="EMAILQ"``; ``gsi1pk="EMAILS"`` / ``gsi2pk="EMAILSTATUS#<status>"`` /
  ``gsi3pk="EMAILTPL#<template>"``, each with sort key ``<created_at>#<id>``.
* dedupe guard: ``pk="EMAILDEDUPE#<key>"``, ``sk="DEDUPE"`` → ``email_id``.
* counters: ``pk="EMAILSTATS"``, ``sk="TOTAL"`` and ``sk="DAY#<yyyy-mm-dd>"`` (creation day), attributes
  ``c_<status>_<template>`` and ``o_<template>`` (unique opens). Every status change moves the counters in
  the same transaction as the email item, so totals never drift.
* template override: ``pk="EMAILTPL#<kind>"``, ``sk="TEMPLATE"``.
* sandbox message: ``pk="SANDBOXMAIL"``, ``sk="<sent_at>#<id>"`` (local provider), its bytes
  ``pk="EMAILRAW#<email id>"``, ``sk="P#<n>"`` (``sandbox_record``).
"""
from __future__ import annotations

import json
from typing import Any

from lambdakit import aws, clock
from lambdakit.conditions import Attr
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, Contention

from ..settings import settings

STATS_PK = "EMAILSTATS"
#: The all-time counters item: ``c_<status>_<template>`` is the number of emails now in that status
#: (moved in the transaction of every status change), so a status whose counters are all zero
#: holds no email (the ``process-emails`` sweep reads it instead of querying an empty index).
STATS_TOTAL = (STATS_PK, "TOTAL")


def table() -> Table:
    return Table(settings().table_name)


def email_key(email_id: str) -> tuple[str, str]:
    return f"EMAILQ#{email_id}", "EMAILQ"


def counter(status: str, template: str) -> str:
    return f"c_{status}_{template}"


class DuplicateEmail(Exception):
    def __init__(self, email_id: str | None) -> None:
        super().__init__("duplicate dedupe key")
        self.email_id = email_id


# ---------------------------------------------------------------- email items
def email_ops(item: dict, dedupe_key: str | None) -> list[dict]:
    """The writes of a new pending email: its dedupe guard (first, when keyed), the item, counters.
    Also the caller's share of a business transaction (the transactional outbox, ``outbox.pending``)."""
    day = item["created_at"][:10]
    c = {counter(item["status"], item["template"]): 1}
    ops: list[dict] = [
        {"put": item, "condition": "attribute_not_exists(pk)"},
        {"update": (STATS_PK, "TOTAL"), "add": c},
        {"update": (STATS_PK, f"DAY#{day}"), "add": c},
    ]
    if dedupe_key:
        ops.insert(0, {"put": {"pk": f"EMAILDEDUPE#{dedupe_key}", "sk": "DEDUPE", "email_id": item["id"],
                               "created_at": item["created_at"]},
                       "condition": "attribute_not_exists(pk)"})
    return ops


def dedupe_owner(dedupe_key: str) -> str | None:
    """The email id holding ``dedupe_key`` (read consistently), or None when nothing holds it."""
    existing = table().get(f"EMAILDEDUPE#{dedupe_key}", "DEDUPE", consistent=True)
    return str(existing.get("email_id") or "") if existing else None


def insert_email(item: dict, dedupe_key: str | None, attempts: int = 3) -> None:
    """Write a new pending email with its counters (and dedupe guard) atomically.

    ``DuplicateEmail`` only when the dedupe item read back exists (issue 23, rule 2: a condition
    failure is confirmed before it is believed); an unconfirmed failure is retried, then 503."""
    for _ in range(attempts):
        try:
            table().transact(email_ops(item, dedupe_key))
            return
        except ConditionFailed:
            owner = dedupe_owner(dedupe_key) if dedupe_key else None
            if owner is not None:
                raise DuplicateEmail(owner or None) from None
    raise Contention("The email could not be queued, please retry")


def get_email(email_id: str, *, consistent: bool = True) -> dict | None:
    return table().get(*email_key(email_id), consistent=consistent)


def transition(email: dict, to_status: str, *, expect: str | None = None, set: dict | None = None,
               remove: list[str] | None = None, extra_condition: str | None = None,
               names: dict | None = None, values: dict | None = None) -> bool:
    """Move ``email`` from ``expect`` (default its current status) to ``to_status`` with its counters.

    Returns False when the condition no longer holds (another worker won)."""
    frm = expect or email["status"]
    tpl = email["template"]
    day = email["created_at"][:10]
    created_key = f"{email['created_at']}#{email['id']}"
    upd = {"status": to_status, "gsi2pk": f"EMAILSTATUS#{to_status}", "gsi2sk": created_key,
           "updated_at": clock.now_iso(), **(set or {})}
    cond = "#st = :from" + (f" AND ({extra_condition})" if extra_condition else "")
    ops: list[dict] = [{"update": email_key(email["id"]), "set": upd, "remove": remove or None,
                        "condition": cond, "names": {"#st": "status", **(names or {})},
                        "values": {":from": frm, **(values or {})}}]
    if frm != to_status:
        delta = {counter(frm, tpl): -1, counter(to_status, tpl): 1}
        ops.append({"update": (STATS_PK, "TOTAL"), "add": delta})
        ops.append({"update": (STATS_PK, f"DAY#{day}"), "add": delta})
    try:
        table().transact(ops)
    except ConditionFailed:
        return False
    return True


def record_delivery(email_id: str, message_id: str, subject: str) -> bool:
    """Record the provider's message id on a claimed (``sending``) email, before its sent transition.
    False when the email is no longer ``sending`` (the sent transition then reads it back)."""
    try:
        table().update(*email_key(email_id), set={"message_id": message_id, "subject": subject,
                                                  "delivered_at": clock.now_iso()},
                       condition="#st = :sending", names={"#st": "status"}, values={":sending": "sending"},
                       must_exist=True)
    except ConditionFailed:
        return False
    return True


def record_open(email_id: str, when: str) -> dict | None:
    """Set ``opened_at`` on the first open only; returns the email when this call recorded it."""
    t = table()
    try:
        item = t.update(*email_key(email_id), set={"opened_at": when}, add={"open_count": 1},
                        condition="attribute_not_exists(opened_at)", must_exist=True)
    except ConditionFailed:
        return None
    try:
        ops = {f"o_{item['template']}": 1}
        t.transact([{"update": (STATS_PK, "TOTAL"), "add": ops},
                    {"update": (STATS_PK, f"DAY#{item['created_at'][:10]}"), "add": ops}])
    except ConditionFailed:  # pragma: no cover - unconditional
        pass
    return item


def list_emails(*, status: str | None, template: str | None, start: str | None, end: str | None,
                offset: int, limit: int) -> list[dict]:
    """One page, newest first, using the narrowest index for the filters."""
    from ..admin_common import repository as listing

    if status:
        index, pk = "gsi2", f"EMAILSTATUS#{status}"
    elif template:
        index, pk = "gsi3", f"EMAILTPL#{template}"
    else:
        index, pk = "gsi1", "EMAILS"
    filt = Attr("template").eq(template) if (status and template) else None
    between = (start or "0000", (end or "9999") + "\uffff") if (start or end) else None
    return listing.page_items(pk, index=index, sk_between=between, filter=filt, offset=offset, limit=limit)[0]


def due_pending(now_iso: str, limit: int) -> list[dict]:
    """Pending emails whose next attempt is due (oldest first)."""
    out: list[dict] = []
    cursor = None
    while len(out) < limit:
        items, cursor = table().query("EMAILSTATUS#pending", index="gsi2", filter=Attr("next_attempt_at").lte(now_iso),
                                      limit=max(limit, 50), cursor=cursor)
        out.extend(items)
        if not cursor:
            break
    return out[:limit]


def stale_sending(limit: int) -> list[dict]:
    items, _ = table().query("EMAILSTATUS#sending", index="gsi2", limit=limit)
    return items


def stats_total() -> dict:
    return table().get(STATS_PK, "TOTAL", consistent=True) or {}


def stats_days(first_day: str, last_day: str) -> list[dict]:
    return table().query_all(STATS_PK, sk_between=(f"DAY#{first_day}", f"DAY#{last_day}"), max_items=2000)


# ---------------------------------------------------------------- templates and settings
_SITE_KEY = ("SETTINGS", "SITE")


def _template_key(kind: str) -> tuple[str, str]:
    return f"EMAILTPL#{kind}", "TEMPLATE"


def template_and_site(kind: str) -> tuple[dict | None, dict]:
    """The stored override of template ``kind`` (``None``: the default) and the site settings (``{}``
    when unset), in one BatchGetItem (eventually consistent)."""
    found = table().get_many([_template_key(kind), _SITE_KEY])
    return found.get(_template_key(kind)), found.get(_SITE_KEY, {})


def email_with_template(email_id: str, kind: str) -> tuple[dict | None, tuple[dict | None, dict]]:
    """The email (strongly consistent, as ``get_email``) with what rendering it reads, the override
    of template ``kind`` and the site settings (``template_and_site``), in one BatchGetItem: a
    claimed email's re-read and its template, one round trip."""
    key = email_key(email_id)
    found = table().get_many([key, _template_key(kind), _SITE_KEY], consistent=True)
    return found.get(key), (found.get(_template_key(kind)), found.get(_SITE_KEY, {}))


# ---------------------------------------------------------------- SQS / S3 / providers
def send_work(email_id: str, delay_seconds: int = 0) -> None:
    url = settings().email_queue_url
    if not url:
        raise RuntimeError("email queue URL not configured")
    aws.client("sqs").send_message(QueueUrl=url, MessageBody=json.dumps({"emailId": email_id}),
                                   DelaySeconds=max(0, min(900, int(delay_seconds))))


def read_attachment(key: str, max_bytes: int = 7_000_000) -> bytes | None:
    """The attachment's bytes, ``None`` when the object is gone; ``ValueError`` (``ObjectTooLarge``)
    over ``max_bytes``; S3 failures are ``lambdakit.s3``'s (``FileStoreUnavailable`` when transient)."""
    from lambdakit import s3

    return s3.get(settings().files_bucket, key, max_bytes=max_bytes)


def ses_send(*, sender: str, to: str, raw: bytes, tags: dict[str, str] | None = None) -> str:
    """Send the message's bytes (``delivery.build_raw``) through SES v2; returns the provider
    message id. Raises on rejection."""
    kw: dict[str, Any] = {"FromEmailAddress": sender, "Destination": {"ToAddresses": [to]},
                          "Content": {"Raw": {"Data": raw}}}
    if tags:
        kw["EmailTags"] = [{"Name": k, "Value": v} for k, v in tags.items()]
    return aws.client("sesv2").send_email(**kw)["MessageId"]


def sandbox_record(message: dict, raw: bytes) -> None:
    """The sandbox's copy: the fields, and the bytes (zlib-compressed pieces of at most 300 KB,
    DynamoDB items stop at 400 KB) at ``EMAILRAW#<email id>`` / ``P#<n>``: one BatchWriteItem for
    any message under about 7 MB compressed."""
    from lambdakit.mime import pack

    ttl = int(clock.now_ts()) + 30 * 86400
    pieces = pack(raw)
    table().batch_write(puts=[{"pk": f"EMAILRAW#{message['email_id']}", "sk": f"P#{n:04d}", "piece": p, "ttl": ttl}
                              for n, p in enumerate(pieces)]
                        + [{"pk": "SANDBOXMAIL", "sk": f"{message['sent_at']}#{message['id']}", **message,
                            "raw_pieces": len(pieces), "ttl": ttl}])


def sandbox_raw(email_id: str) -> bytes | None:
    """The bytes the sandbox kept for one email; ``None`` when there are none (sent through SES,
    not sent yet, or expired)."""
    from lambdakit.mime import unpack

    if not email_id or len(email_id) > 64 or not email_id.isalnum():
        return None
    parts = table().query_all(f"EMAILRAW#{email_id}", consistent=True, max_items=200)
    return unpack(p["piece"] for p in sorted(parts, key=lambda p: p["sk"])) if parts else None


def sandbox_messages(limit: int = 100) -> list[dict]:
    items, _ = table().query("SANDBOXMAIL", limit=limit, forward=False, consistent=True)
    return items
