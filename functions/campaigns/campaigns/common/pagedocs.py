"""OpenAPI documentation models of the paged routes (r2-campaigns): the ``page``/``limit``/``cursor``
query and the cursor page. Apart from the paging helpers (``pages``), so a request that pages
does not define them (issue 21)."""
from __future__ import annotations

from pydantic import Field

from lambdakit.model import Model

from .view import View


class PageQuery(Model):
    """``page``/``limit`` (max 100) or the opaque ``cursor`` from ``data.pagination.next_cursor``."""
    page: int | None = Field(default=None, ge=1)
    limit: int | None = Field(default=None, ge=1, le=100)
    cursor: str | None = None


class PageNumberQuery(Model):
    """``page``/``limit`` (max 100) of a small collection read whole (no cursor)."""
    page: int | None = Field(default=None, ge=1)
    limit: int | None = Field(default=None, ge=1, le=100)


class CursorQuery(Model):
    limit: int | None = Field(default=None, ge=1, le=100)
    cursor: str | None = None


class CursorPage(View):
    limit: int
    next_cursor: str | None = None
