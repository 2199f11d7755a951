"""Page/cursor helpers shared by the audience list routes."""
from __future__ import annotations

from lambdakit.cursors import InvalidCursor, decode_cursor, encode_cursor
from lambdakit.errors import ValidationFailed
from lambdakit.pagination import page_meta, page_request

from ..settings import settings


def parse_cursor(cursor: str | None, *, expect: dict[str, str] | None = None) -> dict | None:
    """Decode a cursor (``lambdakit.cursors``: signed, bound to the route, filters and account).
    ``expect`` pins attributes (e.g. the partition key) as a second check: 400 otherwise."""
    data = decode_cursor(cursor)  # 400 INVALID_CURSOR unless issued for this route, filters and caller
    if data is not None and expect:
        for k, v in expect.items():
            if data.get(k) != v:
                raise InvalidCursor("Cursor does not match this query")
    return data


def make_cursor(key: dict | None) -> str | None:
    return encode_cursor(key)


def key_of(item: dict, index: str | None = None) -> dict:
    """The ExclusiveStartKey that resumes a query right after ``item``."""
    k = {"pk": item["pk"], "sk": item["sk"]}
    if index:
        k[f"{index}pk"] = item[f"{index}pk"]
        k[f"{index}sk"] = item[f"{index}sk"]
    return k


def walk(fetch, *, skip: int, need: int, start: dict | None, index: str | None = None, enrich=None, match=None,
         budget: int = 12) -> tuple[list, dict | None, bool]:
    """Collect ``need`` results after skipping ``skip`` from a key query, page by page.

    ``fetch(limit, cursor) -> (items, last_key)`` runs one query; ``enrich(items)`` maps
    index items to the objects returned (same order, ``None`` for a dangling entry);
    ``match(obj)`` filters what the query's key and FilterExpression could not. At most
    ``budget`` queries run, so a request's cost is bounded whatever the data size.
    Returns ``(results, resume_key, complete)``; ``complete`` is false when the budget ran
    out first (the caller then returns what it has and ``resume_key``).
    """
    out: list = []
    cursor = start
    for _ in range(budget):
        remaining = need + skip - len(out)
        n = remaining if match is None else max(50, min(400, 2 * remaining))
        items, last = fetch(min(max(n, 1), 1000), cursor)
        objs = enrich(items) if enrich else items
        for i, (raw, obj) in enumerate(zip(items, objs, strict=False)):
            if obj is None or (match is not None and not match(obj)):
                continue
            if skip:
                skip -= 1
                continue
            out.append(obj)
            if len(out) == need:
                at_end = i == len(items) - 1 and last is None
                return out, None if at_end else key_of(raw, index), True
        if last is None:
            return out, None, True
        cursor = last
    return out, cursor, False


def account_page(a: str, page: str | None, limit: str | None, cursor: str | None, fetch, total) -> tuple[list, dict]:
    """A page of one of the account's own collections (items under ``pk=ACCT#<a>``).

    ``fetch(limit, cursor)`` is the key query, ``total()`` reads the collection's counter.
    Returns ``(items, pagination)`` with ``next_cursor``."""
    pr = page_request(page, limit)
    start = parse_cursor(cursor, expect={"pk": f"ACCT#{a}"})
    if start is None and pr.offset > settings().max_page_offset:
        raise ValidationFailed("Page too deep; use cursor", fields={"page": "Too deep; follow next_cursor"})
    seen = [0]

    def counted(n: int, c: dict | None) -> tuple[list, dict | None]:
        got, last = fetch(n, c)
        seen[0] += len(got)
        return got, last

    items, resume, complete = walk(counted, skip=0 if start else pr.offset, need=pr.limit, start=start)
    # Read from the collection's first item to its last (no cursor in, none left): the items read
    # are its total, the counter's value (kept in the same transactions as the items), so the
    # counter item is read only otherwise (cold start: one read fewer on small collections).
    n = seen[0] if start is None and resume is None and complete else total()
    meta = page_meta(pr, n)
    meta["next_cursor"] = make_cursor(resume)
    return items, meta
