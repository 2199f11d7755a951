"""Data-access helpers shared by the delivery repositories (questions, tests, attempts,
proctoring, analytics): the table handle and page/cursor queries. Only repositories import it."""
from __future__ import annotations

from typing import Any, overload

from lambdakit.ddb import Table, decode_cursor, encode_cursor
from lambdakit.errors import ValidationFailed

from .settings import settings


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
    try:
        start = decode_cursor(cursor) if cursor else None
    except ValueError:
        raise ValidationFailed("cursor is invalid", fields={"cursor": "Invalid cursor"}) from None
    if start is None and page > 1:
        skip = (page - 1) * limit
        while skip > 0:
            items, start = t.query(pk, index=index, sk_prefix=sk_prefix, limit=skip, cursor=start, forward=forward)
            skip -= len(items)
            if not start:
                return [], None
    items, last = t.query(pk, index=index, sk_prefix=sk_prefix, limit=limit, cursor=start, forward=forward)
    return items, encode_cursor(last)


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
