"""Listing contacts (GET /contacts): the list, tag and status filters read their index and take the
total from the maintained counters; prefix search (email, full name, last name) merges three sorted
index streams; page/limit, or an opaque cursor bound to its query."""
from __future__ import annotations

import json
from typing import Any

from lambdakit.errors import NotFound, ValidationFailed
from lambdakit.pagination import page_meta, page_request

from ..common.pages import key_of, make_cursor, parse_cursor, walk
from ..settings import settings
from . import repository as repo
from .fields import STATUSES
from .records import enrich, public


def _search_term(raw: str | None) -> str | None:
    if raw is None:
        return None
    s = raw.strip().lower()
    if not s:
        return None
    if len(s) > 100:
        raise ValidationFailed("search is too long", fields={"search": "At most 100 characters"})
    return s


def _matches_search(c: dict, s: str) -> bool:
    first, last = (c.get("first_name") or "").strip().lower(), (c.get("last_name") or "").strip().lower()
    full = " ".join(x for x in (first, last) if x)
    return c["email"].lower().startswith(s) or full.startswith(s) or last.startswith(s)


def list_contacts(a: str, *, page: str | None, limit: str | None, cursor: str | None, list_id: str | None,
                  tag: str | None, status: str | None, search: str | None) -> dict:
    pr = page_request(page, limit)
    if status is not None and status not in STATUSES:
        raise ValidationFailed("Invalid status", fields={"status": f"One of: {', '.join(STATUSES)}"})
    list_id = (list_id or "").strip() or None
    tag = (tag or "").strip() or None
    s = _search_term(search)
    cnt = repo.counters(a, list_id=list_id, tag=tag)
    if list_id and cnt.get("list") is None:
        raise NotFound("List not found")

    def count(item: dict | None, key: str) -> int:
        return max(0, int((item or {}).get(key, 0)))

    # counter-backed candidates: (count with the status filter applied, source, value)
    cands = []
    if list_id:
        cands.append((count(cnt["list"], status or "contact_count"), "list", list_id))
    if tag:
        cands.append((count(cnt["tag"], status or "total"), "tag", tag))
    base_total = count(cnt["contacts"], status or "total")

    state = parse_cursor(cursor)  # a cursor wins over page
    skip = 0 if state is not None else pr.offset
    if state is None and skip > settings().max_page_offset:
        raise ValidationFailed("Page too deep; follow next_cursor",
                               fields={"page": f"page * limit must stay under {settings().max_page_offset}"})

    if cands:
        exact_total, source, value = min(cands)
        other_tag = tag if source == "list" else None
        other_list = list_id if source == "tag" else None

        def match(c: dict) -> bool:
            return ((other_tag is None or other_tag in (c.get("tags") or []))
                    and (other_list is None or other_list in (c.get("lists") or []))
                    and (s is None or _matches_search(c, s))
                    and (status is None or c.get("status") == status))

        need_match = bool(other_tag or other_list or s)
        start = _check_cursor(state, a, source, value, status)
        items, resume, complete = walk(
            lambda n, cur: repo.query_source(source, a, value=value, status=status, limit=n, cursor=cur),
            skip=skip, need=pr.limit, start=start, enrich=lambda xs: enrich(a, xs),
            match=match if need_match else (lambda c: status is None or c.get("status") == status))
        exact = not need_match
        total = exact_total
        cursor_out = _cursor(source, resume)
    elif s:
        items, cursor_out, complete = _search(a, s, status, skip, pr.limit, state)
        exact, total = False, base_total
    else:
        source = "status" if status else "all"
        start = _check_cursor(state, a, source, None, status)
        items, resume, complete = walk(
            lambda n, cur: repo.query_source(source, a, value=None, status=status, limit=n, cursor=cur),
            skip=skip, need=pr.limit, start=start, index=repo.SOURCE_INDEX[source])
        exact, total = True, base_total
        cursor_out = _cursor(source, resume)
    if not exact and cursor_out is None and complete:
        total, exact = pr.offset + len(items) if state is None else total, state is None
    meta = page_meta(pr, total)
    meta.update(next_cursor=cursor_out, total_exact=exact)
    return {"contacts": [public(c) for c in items], "pagination": meta}


def _cursor(source: str, key: dict | None) -> str | None:
    return make_cursor({**key, "_src": source}) if key else None


def _check_cursor(state: dict | None, a: str, source: str, value: str | None, status: str | None) -> dict | None:
    if state is None:
        return None
    attr, pk = repo.source_pk(source, a, value, status)
    if state.get("_src") != source or state.get(attr) != pk:
        raise ValidationFailed("Invalid cursor", fields={"cursor": "Cursor does not match this query"})
    return {k: v for k, v in state.items() if k != "_src"}


SEARCH_SOURCES = ("email", "name", "last")


def _search(a: str, s: str, status: str | None, skip: int, need: int, state: dict | None):
    """Prefix search: a merge of three sorted index streams (email, full name, last name),
    ordered by the matched text; a contact found by several streams is returned once per
    request. Cursor: the resume key of each stream."""
    pos: dict[str, Any] = {}
    if state is not None:
        if state.get("_src") != "search" or state.get("q") != s:
            raise ValidationFailed("Invalid cursor", fields={"cursor": "Cursor does not match this query"})
        for src in SEARCH_SOURCES:
            raw = state.get(src, "")
            if raw in ("", "done"):
                pos[src] = raw or None
            else:
                try:
                    key = json.loads(raw)
                except ValueError:
                    raise ValidationFailed("Invalid cursor", fields={"cursor": "Invalid cursor"}) from None
                attr, pk = repo.source_pk(src, a, None, None)
                if not isinstance(key, dict) or key.get(attr) != pk:
                    raise ValidationFailed("Invalid cursor", fields={"cursor": "Invalid cursor"})
                pos[src] = key
    else:
        pos = {src: None for src in SEARCH_SOURCES}
    fetch_at = dict(pos)
    bufs: dict[str, list[dict]] = {src: [] for src in SEARCH_SOURCES}
    calls, budget = 0, 12
    seen: set[str] = set()
    out: list[dict] = []

    def sort_key(src: str, item: dict) -> tuple[str, str]:
        idx = repo.SOURCE_INDEX[src]
        v = item[f"{idx}sk"]
        return (v, item["id"]) if src == "email" else tuple(v.rsplit("#", 1))  # type: ignore[return-value]

    while True:
        for src in SEARCH_SOURCES:
            if not bufs[src] and fetch_at[src] != "done":
                if calls >= budget:
                    return out, _search_cursor(s, pos), False
                items, last = repo.query_source(src, a, value=s, status=status, limit=max(25, need),
                                                cursor=fetch_at[src])
                calls += 1
                bufs[src].extend(items)
                fetch_at[src] = last if last else "done"
        heads = [(sort_key(src, bufs[src][0]), src) for src in SEARCH_SOURCES if bufs[src]]
        if not heads:
            return out, None, True
        # take a run of merged heads, then resolve them with one BatchGetItem
        run: list[tuple[str, dict]] = []
        while heads and len(run) < need + skip + 10:
            _, src = min(heads)
            run.append((src, bufs[src].pop(0)))
            heads = [(sort_key(x, bufs[x][0]), x) for x in SEARCH_SOURCES if bufs[x]]
            if not bufs[src] and fetch_at[src] != "done":
                break  # must refill this stream before merging further
        contacts = enrich(a, [it for _, it in run])
        last_of = {src: it for src, it in run}
        for (src, it), c in zip(run, contacts, strict=False):
            pos[src] = key_of(it, repo.SOURCE_INDEX[src])
            if it is last_of[src] and not bufs[src] and fetch_at[src] == "done":
                pos[src] = "done"
            if c is None or c["id"] in seen or (status and c.get("status") != status):
                continue
            seen.add(c["id"])
            if skip:
                skip -= 1
                continue
            out.append(c)
            if len(out) == need:
                more = any(bufs[x] or fetch_at[x] != "done" for x in SEARCH_SOURCES) or it is not run[-1][1]
                return out, _search_cursor(s, pos) if more else None, True


def _search_cursor(s: str, pos: dict[str, Any]) -> str | None:
    state = {"_src": "search", "q": s}
    for src in SEARCH_SOURCES:
        v = pos.get(src)
        state[src] = "" if v is None else ("done" if v == "done" else json.dumps(v, sort_keys=True))
    return make_cursor(state)
