"""Data access of the public forms.

Items:
* lead: ``pk="LEAD#<id>"``, ``sk="LEAD"``; ``gsi1pk="LEADS"``, ``gsi2pk="LEADSTATUS#<status>"``,
  ``gsi3pk="LEADSOURCE#<source>"``, each ``gsiNsk="<created_at>#<id>"``; counters in
  ``pk="COUNTER#LEADS"``, ``sk="TOTAL"`` (``all``, ``status:<s>``, ``source:<s>``).
* newsletter subscriber: ``pk="NEWSLETTER#<email>"``, ``sk="SUBSCRIBER"``.
* contact message: ``pk="CONTACT#<id>"``, ``sk="CONTACT"``; ``gsi1pk="CONTACTS"``; counter ``COUNTER#CONTACTS``.
* visitors: marker ``pk="VISITOR#<day>"``, ``sk=<hash>`` (TTL 2 days) and counters
  ``pk="COUNTER#VISITS"``, ``sk="DAY#<day>"`` / ``sk="TOTAL"`` (attribute ``visitors``), and the
  per-address budget of new visitors ``pk="VISITNEW#<day>"``, ``sk=<address hash>`` (``n``, TTL 2 days).
"""
from __future__ import annotations

from lambdakit import ratelimit
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed

from ..settings import settings


def table() -> Table:
    return Table(settings().table_name)


def rate_hit(subject: str, limit: int, window: int) -> ratelimit.RateDecision:
    return ratelimit.hit(table(), subject, limit, window)


def lead_ops(lead: dict) -> list[dict]:
    key = f"{lead['created_at']}#{lead['id']}"
    item = {"pk": f"LEAD#{lead['id']}", "sk": "LEAD", "type": "lead", **lead,
            "gsi1pk": "LEADS", "gsi1sk": key,
            "gsi2pk": f"LEADSTATUS#{lead['status']}", "gsi2sk": key,
            "gsi3pk": f"LEADSOURCE#{lead['source']}", "gsi3sk": key}
    return [{"put": item, "condition": "attribute_not_exists(pk)"},
            {"update": ("COUNTER#LEADS", "TOTAL"),
             "add": {"all": 1, f"status:{lead['status']}": 1, f"source:{lead['source']}": 1}}]


def _fresh_puts(ops: list[dict]) -> tuple[int, ...]:
    return tuple(i for i, op in enumerate(ops) if "put" in op)


def save_lead(lead: dict, mail_ops: list[dict]) -> None:
    """The lead, its counters and its email (``mail_ops``, the transactional outbox) in one
    transaction. Every put holds an id minted for it: a condition failure is a collision (503)."""
    ops = lead_ops(lead) + mail_ops
    table().transact(ops, fresh=_fresh_puts(ops))


def subscribe(email: str, subscriber: dict, lead: dict, mail_ops: list[dict]) -> bool | None:
    """Store a subscriber, its newsletter lead and its welcome email (``mail_ops``) atomically.

    False only when the subscriber read back exists (already subscribed; issue 23 rule 2: a
    condition failure is confirmed before it is believed); None when the condition failed but the
    subscriber is not there (the caller retries)."""
    pk = f"NEWSLETTER#{email}"
    try:
        table().transact([{"put": {"pk": pk, "sk": "SUBSCRIBER", "type": "subscriber", **subscriber},
                           "condition": "attribute_not_exists(pk)"},
                          {"update": ("COUNTER#NEWSLETTER", "TOTAL"), "add": {"all": 1}},
                          *lead_ops(lead), *mail_ops])
    except ConditionFailed:
        return False if table().get(pk, "SUBSCRIBER", consistent=True) else None
    return True


def save_contact(msg: dict, mail_ops: list[dict]) -> None:
    """The message, its counter and its email (``mail_ops``) in one transaction (fresh ids: 503
    on a collision)."""
    key = f"{msg['created_at']}#{msg['id']}"
    ops = [
        {"put": {"pk": f"CONTACT#{msg['id']}", "sk": "CONTACT", "type": "contact", **msg,
                 "gsi1pk": "CONTACTS", "gsi1sk": key}, "condition": "attribute_not_exists(pk)"},
        {"update": ("COUNTER#CONTACTS", "TOTAL"), "add": {"all": 1}},
        *mail_ops,
    ]
    table().transact(ops, fresh=_fresh_puts(ops))


def count_visit(day: str, visitor_hash: str, ip_hash: str, cap: int, ttl: int) -> bool:
    """Count a visitor once per day, within the address's daily budget of new visitors (``cap``):
    False when already counted today or when the budget is spent (nothing is written then)."""
    try:
        table().transact([
            {"put": {"pk": f"VISITOR#{day}", "sk": visitor_hash, "ttl": ttl}, "condition": "attribute_not_exists(pk)"},
            {"update": ("COUNTER#VISITS", f"DAY#{day}"), "add": {"visitors": 1}},
            {"update": ("COUNTER#VISITS", "TOTAL"), "add": {"visitors": 1}},
            {"update": (f"VISITNEW#{day}", ip_hash), "add": {"n": 1}, "set": {"ttl": ttl},
             "condition": "attribute_not_exists(n) OR n < :cap", "values": {":cap": cap}},
        ])
    except ConditionFailed:
        return False
    return True


def site_settings() -> dict:
    return table().get("SETTINGS", "SITE") or {}
