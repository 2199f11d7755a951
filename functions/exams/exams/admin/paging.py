"""Page/limit over a key query (repositories only).

Totals come from counters maintained at write time; a page is reached by reading the
keys before it in the same query (cost grows with the page number, never with the table),
and deep offsets are refused so a request stays bounded.
"""
from __future__ import annotations

from typing import Any

from lambdakit.ddb import Table
from lambdakit.errors import ValidationFailed
from lambdakit.pagination import PageRequest

MAX_OFFSET = 10_000


def fetch_page(table: Table, pk_value: str, req: PageRequest, **kw: Any) -> list[dict]:
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
