"""Query parsing and the response shape shared by every ADMIN list route."""
from __future__ import annotations

from lambdakit.http import query
from lambdakit.pagination import PageRequest, page_meta, page_request


def page_params(app) -> tuple[PageRequest, str | None]:
    """``page``/``limit`` (default 20, max 100) and an optional opaque ``cursor``."""
    return page_request(query(app, "page"), query(app, "limit")), (query(app, "cursor") or None)


def filters(app, *names: str) -> dict[str, str]:
    """The non-empty query parameters among ``names`` (trimmed)."""
    out = {}
    for n in names:
        v = query(app, n)
        if v is not None and v.strip() != "":
            out[n] = v.strip()
    return out


def paginated(key: str, items: list, req: PageRequest, total: int, next_cursor: str | None = None,
              exact: bool = True, **extra) -> dict:
    body = {"success": True, key: items, **page_meta(req, total), "nextCursor": next_cursor}
    if not exact:
        body["totalExact"] = False
    body.update(extra)
    return body
