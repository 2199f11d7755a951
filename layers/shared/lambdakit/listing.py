"""List routes: the query a paginated list route reads and the body it answers.

A list route reads ``page`` (≥ 1), ``limit`` (default 20, at most 100), an optional opaque
``cursor`` and a few filters, asks its domain for one window of items, and answers::

    {"success": true, "<key>": [...], "page", "limit", "total", "pages", "nextCursor",
     "totalExact": false (only when the total is a bounded estimate), ...extra}

    q = list_request(router, "status", "search")
    items, total, exact, nxt = service.list_things(status=q.get("status"), **q.window)
    return ok(list_body("things", items, q, total, nxt, exact))
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .http import HttpApp, query
from .pagination import PageRequest, page_meta, page_request


@dataclass(frozen=True)
class ListRequest:
    page: PageRequest
    cursor: str | None
    filters: dict[str, str]

    @property
    def window(self) -> dict[str, Any]:
        """``offset``, ``limit`` and ``cursor``: the keyword arguments of a domain's list call."""
        return {"offset": self.page.offset, "limit": self.page.limit, "cursor": self.cursor}

    def get(self, name: str) -> str | None:
        """One filter's value (``None`` when absent or blank)."""
        return self.filters.get(name)


def filters(app: HttpApp, *names: str) -> dict[str, str]:
    """The non-empty query parameters among ``names`` (trimmed)."""
    out = {}
    for n in names:
        v = query(app, n)
        if v is not None and v.strip() != "":
            out[n] = v.strip()
    return out


def list_request(app: HttpApp, *filter_names: str) -> ListRequest:
    """``page``/``limit`` (400 when out of range), ``cursor`` and the given filters."""
    return ListRequest(page_request(query(app, "page"), query(app, "limit")), query(app, "cursor") or None,
                     filters(app, *filter_names))


def list_body(key: str, items: list, q: ListRequest, total: int, next_cursor: str | None = None,
              exact: bool = True, **extra: Any) -> dict:
    body = {"success": True, key: items, **page_meta(q.page, total), "nextCursor": next_cursor}
    if not exact:
        body["totalExact"] = False
    body.update(extra)
    return body
