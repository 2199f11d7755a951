"""Page/limit pagination with totals from counters, plus opaque cursors for deep pages."""
from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import ValidationFailed


@dataclass(frozen=True)
class PageRequest:
    page: int
    limit: int

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.limit


def page_request(page: str | int | None, limit: str | int | None, *, default_limit: int = 20,
                 max_limit: int = 100) -> PageRequest:
    def as_int(value, name, default):
        if value is None or value == "":
            return default
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ValidationFailed(f"{name} must be an integer", fields={name: "Must be an integer"}) from None

    p = as_int(page, "page", 1)
    lim = as_int(limit, "limit", default_limit)
    if p < 1:
        raise ValidationFailed("page must be at least 1", fields={"page": "Must be at least 1"})
    if lim < 1 or lim > max_limit:
        raise ValidationFailed(f"limit must be between 1 and {max_limit}",
                               fields={"limit": f"Must be between 1 and {max_limit}"})
    return PageRequest(p, lim)


def page_meta(req: PageRequest, total: int) -> dict:
    return {"page": req.page, "limit": req.limit, "total": int(total),
            "pages": int(math.ceil(total / req.limit)) if total else 0}
