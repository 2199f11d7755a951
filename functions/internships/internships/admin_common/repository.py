"""Page/limit listing over a DynamoDB key query (no Scan).

``page_items`` walks the query (newest first by default) skipping ``offset`` matches
and returns ``limit`` of them plus an opaque cursor for the next page. The walk is
bounded: at most ``MAX_EVALUATED`` items are read for one request, so a deep page
of a heavily filtered list answers 400 and asks for the cursor instead.
``count_items`` counts with ``Select=COUNT`` pages, also bounded.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lambdakit.ddb import Table, decode_cursor, encode_cursor, from_ddb
from lambdakit.errors import ValidationFailed

from ..settings import settings

if TYPE_CHECKING:
    from boto3.dynamodb.conditions import ConditionBase

MAX_EVALUATED = 20_000
MAX_COUNT_PAGES = 40


def table() -> Table:
    return Table(settings().table_name)


def _key_kwargs(pk_value: str, index: str | None, sk_prefix: str | None, sk_between: tuple[str, str] | None,
                sk_gte: str | None = None, sk_lte: str | None = None) -> dict[str, Any]:
    from boto3.dynamodb.conditions import Key

    pk_attr, sk_attr = ("pk", "sk") if index is None else (f"{index}pk", f"{index}sk")
    cond: ConditionBase = Key(pk_attr).eq(pk_value)
    if sk_prefix is not None:
        cond = cond & Key(sk_attr).begins_with(sk_prefix)
    elif sk_between is not None:
        cond = cond & Key(sk_attr).between(*sk_between)
    elif sk_gte is not None:
        cond = cond & Key(sk_attr).gte(sk_gte)
    elif sk_lte is not None:
        cond = cond & Key(sk_attr).lte(sk_lte)
    kw: dict[str, Any] = {"KeyConditionExpression": cond}
    if index:
        kw["IndexName"] = index
    return kw


def decode(cursor: str | None) -> dict | None:
    try:
        return decode_cursor(cursor)
    except ValueError:
        raise ValidationFailed("cursor is invalid", fields={"cursor": "Invalid cursor"}) from None


def page_items(pk_value: str, *, index: str | None = None, sk_prefix: str | None = None,
               sk_between: tuple[str, str] | None = None, sk_gte: str | None = None, sk_lte: str | None = None,
               filter: Any = None, offset: int = 0, limit: int = 20, cursor: str | None = None,
               forward: bool = False) -> tuple[list[dict], str | None]:
    t = table()
    kw = _key_kwargs(pk_value, index, sk_prefix, sk_between, sk_gte, sk_lte)
    kw["ScanIndexForward"] = forward
    if filter is not None:
        kw["FilterExpression"] = filter
    start = decode(cursor)
    skip = 0 if start else offset
    out: list[dict] = []
    evaluated = 0
    last_key_of_out: dict | None = None
    while True:
        want = skip + limit - len(out)
        kw["Limit"] = max(10, min(1000, want + (want if filter is not None else 0)))
        if start:
            kw["ExclusiveStartKey"] = start
        else:
            kw.pop("ExclusiveStartKey", None)
        resp = t.raw.query(**kw)
        evaluated += int(resp.get("ScannedCount", 0))
        raw_items = resp.get("Items", [])
        for it in raw_items:
            if skip:
                skip -= 1
                continue
            out.append(it)
            if len(out) == limit:
                break
        if len(out) == limit:
            # resume after the last returned item (its key attributes form the cursor)
            last = out[-1]
            keys = ["pk", "sk"] + ([f"{index}pk", f"{index}sk"] if index else [])
            last_key_of_out = {k: last[k] for k in keys if k in last}
            more = bool(resp.get("LastEvaluatedKey")) or it is not raw_items[-1]
            return [from_ddb(i) for i in out], encode_cursor(last_key_of_out) if more else None
        start = resp.get("LastEvaluatedKey")
        if not start:
            return [from_ddb(i) for i in out], None
        if evaluated >= MAX_EVALUATED:
            raise ValidationFailed("Page is too deep for these filters; narrow the filters or use cursor",
                                   fields={"page": "Too deep; use cursor"})


def count_items(pk_value: str, *, index: str | None = None, sk_prefix: str | None = None,
                sk_between: tuple[str, str] | None = None, sk_gte: str | None = None, sk_lte: str | None = None,
                filter: Any = None) -> tuple[int, bool]:
    """``(count, exact)``: exact unless more than ``MAX_COUNT_PAGES`` 1 MB pages matched the key."""
    t = table()
    kw = _key_kwargs(pk_value, index, sk_prefix, sk_between, sk_gte, sk_lte)
    kw["Select"] = "COUNT"
    if filter is not None:
        kw["FilterExpression"] = filter
    total = 0
    for _ in range(MAX_COUNT_PAGES):
        resp = t.raw.query(**kw)
        total += int(resp.get("Count", 0))
        last = resp.get("LastEvaluatedKey")
        if not last:
            return total, True
        kw["ExclusiveStartKey"] = last
    return total, False


def get_counters(pk: str, sk: str) -> dict:
    return table().get(pk, sk) or {}
