"""Audit-log listing (domain): filters user_id, action, entity_type, start_date, end_date.

The most selective key filter picks the partition (user → gsi2, action → gsi3, entity_type →
table, none → gsi1); dates become a key range; remaining filters are filter expressions.
``total``/``pages`` come from counters written with each row when at most one key filter and
no date range are used; otherwise they are ``null`` and ``has_more`` tells whether a next
page exists.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from lambdakit import clock
from lambdakit.conditions import Attr, Condition, all_of
from lambdakit.errors import ValidationFailed
from lambdakit.pagination import PageRequest, page_meta

from ..audit import repository as repo

MAX_SCANNED_PAGES = 25
#: The row fields the listing reads (the query's projection) and shows: ``models.AuditLogRow``'s fields
#: (tests/exams/delivery/test_route_reads_admin.py keeps them equal), never the key attributes or the
#: expiry. A tuple here so that a cold read does not import the models module for it (issue 21).
PUBLIC = ("id", "user_id", "client_id", "action", "entity_type", "entity_id", "metadata", "ip_address",
          "created_at", "event_type", "success", "timestamp")


def _bound(value: str | None, name: str, end: bool) -> str | None:
    if not value:
        return None
    try:
        if len(value) == 10:
            d = dt.date.fromisoformat(value)
            return d.isoformat() + ("T23:59:59.999Z\uffff" if end else "T00:00:00.000Z")
        return clock.iso(clock.parse_iso(value)) + ("\uffff" if end else "")
    except ValueError:
        raise ValidationFailed(f"{name} must be an ISO 8601 date or timestamp",
                               fields={name: "Must be an ISO 8601 date or timestamp"}) from None


def _eq(name: str, value: str) -> Condition:
    """A filter expression (only a list with two key filters needs one)."""
    return Attr(name).eq(value)


def total_counter(*, user_id: str | None, action: str | None, entity_type: str | None, dated: bool) -> str | None:
    """The counter holding the list's total (``None``: the list has none, ``total`` is null): the
    one key filter's, or every row's; none with two key filters or a date range (``dated``)."""
    if dated or (user_id and (action or entity_type)) or (action and entity_type):
        return None
    if user_id:
        return f"USER#{user_id}"
    if action:
        return f"ACTION#{action}"
    if entity_type:
        return f"ENTITY#{entity_type}"
    return "ALL"


def list_logs(req: PageRequest, *, user_id: str | None, action: str | None, entity_type: str | None,
              start_date: str | None, end_date: str | None,
              have: Mapping[tuple[str, str], dict | None] | None = None) -> tuple[list[dict], dict]:
    """``have``: items read with authentication (``identity.reads``): the total's counter when there."""
    start, end = _bound(start_date, "start_date", False), _bound(end_date, "end_date", True)
    if start and end and start > end:
        raise ValidationFailed("start_date is after end_date", fields={"start_date": "Must not be after end_date"})
    filters: list[Condition] = []
    if user_id:
        index, pk = "gsi2", f"AUDIT#USER#{user_id}"
        if action:
            filters.append(_eq("action", action))
        if entity_type:
            filters.append(_eq("entity_type", entity_type))
    elif action:
        index, pk = "gsi3", f"AUDIT#ACTION#{action}"
        if entity_type:
            filters.append(_eq("entity_type", entity_type))
    elif entity_type:
        index, pk = None, f"AUDIT#ENTITY#{entity_type}"
    else:
        index, pk = "gsi1", "AUDIT"
    flt = all_of(filters)
    need = req.offset + req.limit + 1
    out: list[dict] = []
    cursor = None
    for _ in range(MAX_SCANNED_PAGES + req.page):
        items, cursor = repo.query_page(index=index, pk_value=pk, start=start, end=end, filter=flt,
                                        limit=min(1000, need - len(out)) if flt is None else 500, cursor=cursor,
                                        columns=list(PUBLIC))  # what the page shows: no key attributes
        out.extend(items)
        if len(out) >= need or not cursor:
            break
    page = [{k: i.get(k) for k in PUBLIC if k in i} for i in out[req.offset:req.offset + req.limit]]
    has_more = len(out) > req.offset + req.limit or (cursor is not None and len(out) >= need)
    counter = total_counter(user_id=user_id, action=action, entity_type=entity_type, dated=bool(start or end))
    if counter is not None:  # no filter expression (at most one key filter) and no date range
        meta = page_meta(req, repo.count(counter, have=have))
    else:
        meta = {"page": req.page, "limit": req.limit, "total": None, "pages": None}
    meta["has_more"] = has_more
    return page, meta
