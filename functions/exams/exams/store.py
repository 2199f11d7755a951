"""Data-access helpers shared by the repositories: the table handle, page/cursor queries
(``page_query``) and page/limit over a key query with totals from counters (``fetch_page``).
Only repositories import it."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, overload

from lambdakit.cursors import decode_cursor, encode_cursor
from lambdakit.ddb import Table
from lambdakit.errors import ValidationFailed

from .settings import settings

if TYPE_CHECKING:
    from lambdakit.pagination import PageRequest

#: Deepest ``page * limit`` ``fetch_page`` reaches: a request stays bounded.
MAX_OFFSET = 10_000


def table() -> Table:
    """The service table. Not cached here: ``Table`` resolves its boto3 resource through
    ``lambdakit.aws``' cache, so a switch of endpoint (``aws.reset()``, e.g. tests moving from the
    in-process mock to a moto server) is honoured instead of a stale resource being reused."""
    return Table(settings().table_name)


def page_query(pk: str, *, page: int, limit: int, cursor: str | None = None, index: str | None = None,
               sk_prefix: str | None = None, forward: bool = False) -> tuple[list[dict], str | None]:
    """One page of a key query. With ``cursor`` (from a previous ``next_cursor``) the page is
    read directly; otherwise pages before ``page`` are skipped (cost grows with the page number,
    never with the collection size beyond it)."""
    t = table()
    start = decode_cursor(cursor)  # 400 INVALID_CURSOR unless issued for this route, filters and caller
    if start is None and page > 1:
        skip = (page - 1) * limit
        while skip > 0:
            items, start = t.query(pk, index=index, sk_prefix=sk_prefix, limit=skip, cursor=start, forward=forward)
            skip -= len(items)
            if not start:
                return [], None
    items, last = t.query(pk, index=index, sk_prefix=sk_prefix, limit=limit, cursor=start, forward=forward)
    return items, encode_cursor(last)


def fetch_page(table: Table, pk_value: str, req: PageRequest, **kw: Any) -> list[dict]:
    """Page ``req`` (page/limit) of a key query whose total comes from a counter maintained at write
    time: the page is reached by reading the keys before it in the same query (cost grows with the
    page number, never with the table), and offsets deeper than ``MAX_OFFSET`` are refused."""
    if req.offset > MAX_OFFSET:
        raise ValidationFailed("page is too deep", fields={"page": f"page * limit must not exceed {MAX_OFFSET}"})
    need = req.offset + req.limit
    out: list[dict] = []
    cursor = None
    while len(out) < need:
        items, cursor = table.query(pk_value, limit=min(1000, need - len(out)) if kw.get("filter") is None else 1000,
                                    cursor=cursor, **kw)
        out.extend(items)
        if not cursor:
            break
    return out[req.offset:need]


@overload
def strip_keys(item: dict[str, Any]) -> dict[str, Any]: ...
@overload
def strip_keys(item: None) -> None: ...
@overload
def strip_keys(item: dict[str, Any] | None) -> dict[str, Any] | None: ...
def strip_keys(item: dict[str, Any] | None) -> dict[str, Any] | None:
    """The item without its key/index attributes (``None`` stays ``None``)."""
    if item is None:
        return None
    return {k: v for k, v in item.items() if k not in ("pk", "sk", "ttl") and not k.startswith("gsi")}


def read_or_have(key: tuple[str, str], have: Mapping[tuple[str, str], dict | None] | None) -> dict | None:
    """The item ``key``: from ``have`` (items read with authentication in this request,
    ``identity.reads``; ``None`` there: no such item) when it holds the key, else read now."""
    if have is not None and key in have:
        return have[key]
    return table().get(*key)
