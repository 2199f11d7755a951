"""Page/limit listing over a DynamoDB key query (no Scan).

``page_items`` walks the query (newest first by default) skipping ``offset`` matches
and returns ``limit`` of them plus an opaque cursor for the next page. The walk is
bounded: at most ``MAX_EVALUATED`` items are read for one request, so a deep page
of a heavily filtered list answers 400 and asks for the cursor instead.
``count_items`` counts with ``Select=COUNT`` pages, also bounded.
The items come back without their storage keys (``pk``, ``sk``, ``gsi*``, as ``store.clean`` drops them), as the
single-item reads return them; the cursor is built from the keys before they are dropped.
"""
from __future__ import annotations

from typing import Any

from lambdakit.cursors import decode_cursor, encode_cursor
from lambdakit.ddb import Table
from lambdakit.errors import ValidationFailed

from ..settings import settings

MAX_EVALUATED = 20_000
MAX_COUNT_PAGES = 40


def table() -> Table:
    return Table(settings().table_name)


def _clean(item: dict) -> dict:
    """``store.clean``'s rule; not imported, because ``store`` sits above this package
    (tools/importlinter/internships.ini: ``activity | people | store | http`` over ``admin_common``)."""
    return {k: v for k, v in item.items() if k not in ("pk", "sk") and not k.startswith("gsi")}


def decode(cursor: str | None) -> dict | None:
    return decode_cursor(cursor)  # 400 INVALID_CURSOR unless issued for this route, filters and caller


def page_items(pk_value: str, *, index: str | None = None, sk_prefix: str | None = None,
               sk_between: tuple[str, str] | None = None, sk_gte: str | None = None, sk_lte: str | None = None,
               filter: Any = None, offset: int = 0, limit: int = 20, cursor: str | None = None,
               forward: bool = False) -> tuple[list[dict], str | None]:
    t = table()
    key: dict[str, Any] = {"index": index, "sk_prefix": sk_prefix, "sk_between": sk_between, "sk_gte": sk_gte,
                           "sk_lte": sk_lte}
    start = decode(cursor)
    skip = 0 if start else offset
    out: list[dict] = []
    evaluated = 0
    while True:
        want = skip + limit - len(out)
        page = t.query_page(pk_value, **key, filter=filter, forward=forward, cursor=start,
                            limit=max(10, min(1000, want + (want if filter is not None else 0))))
        evaluated += page.scanned
        for n, it in enumerate(page.items):
            if skip:
                skip -= 1
                continue
            out.append(_clean(it))
            if len(out) == limit:
                # resume after the last returned item (its key attributes form the cursor)
                keys = ["pk", "sk"] + ([f"{index}pk", f"{index}sk"] if index else [])
                more = bool(page.last_key) or n < len(page.items) - 1
                return out, encode_cursor({k: it[k] for k in keys if k in it}) if more else None
        start = page.last_key
        if not start:
            return out, None
        if evaluated >= MAX_EVALUATED:
            raise ValidationFailed("Page is too deep for these filters; narrow the filters or use cursor",
                                   fields={"page": "Too deep; use cursor"})


def count_items(pk_value: str, *, index: str | None = None, sk_prefix: str | None = None,
                sk_between: tuple[str, str] | None = None, sk_gte: str | None = None, sk_lte: str | None = None,
                filter: Any = None) -> tuple[int, bool]:
    """``(count, exact)``: exact unless more than ``MAX_COUNT_PAGES`` 1 MB pages matched the key."""
    t = table()
    total = 0
    start = None
    for _ in range(MAX_COUNT_PAGES):
        page = t.query_page(pk_value, index=index, sk_prefix=sk_prefix, sk_between=sk_between, sk_gte=sk_gte,
                            sk_lte=sk_lte, filter=filter, select_count=True, cursor=start)
        total += page.matched
        start = page.last_key
        if not start:
            return total, True
    return total, False


def get_counters(pk: str, sk: str) -> dict:
    return table().get(pk, sk) or {}
