"""Building blocks of the admin routes' OpenAPI documentation (``lambdakit.openapi.doc``).

Response models are what the routes return (issue 35): ``http.ok`` dumps every answer through
its route's model, so an attribute a model does not declare never leaves the service (storage
keys, counters of other items...). A field a stored item has only in some states is optional with a
default and stays absent when unset; a field sent as ``null`` is ``X | None``. Query models document
the query parameters (the handlers still parse and validate them themselves). Nothing here is
imported at cold start: routes name these models as ``"module:Class"`` strings.
"""
from __future__ import annotations

from typing import Any, Optional

from pydantic import ConfigDict, Field

from lambdakit.model import Model


class Out(Model):
    """A response object: exactly its declared fields (undeclared attributes are dropped)."""
    model_config = ConfigDict(defer_build=True)


#: the former name (admin_catalog's models still import it)
Open = Out


class Ok(Out):
    success: bool


class Message(Ok):
    message: str


class ListQuery(Model):
    """``page``, ``limit`` and ``cursor`` (opaque, from ``nextCursor``); bounds and defaults: the fields."""
    model_config = ConfigDict(defer_build=True)

    page: int = Field(1, ge=1, le=10_000)
    limit: int = Field(20, ge=1, le=100)
    cursor: str = Field("", max_length=2000, description="nextCursor of the previous page")


class PageQuery(Model):
    """``page`` and ``limit``; bounds and defaults: the fields."""
    model_config = ConfigDict(defer_build=True)

    page: int = Field(1, ge=1, le=10_000)
    limit: int = Field(20, ge=1, le=100)


class DateRange(Model):
    model_config = ConfigDict(defer_build=True)

    date_from: str = Field("", description="ISO 8601 date or timestamp (inclusive)")
    date_to: str = Field("", description="ISO 8601 date (whole day) or timestamp (inclusive)")


class Page(Ok):
    """The keys ``lambdakit.listing.list_body`` puts beside a list (``http.LIST_SIBLINGS``), for a
    list route whose body carries more than its list (documented as one object, not ``list_key``)."""
    total: int
    page: int
    limit: int
    pages: int
    nextCursor: Optional[str] = None
    totalExact: Optional[bool] = Field(None, description="false when total is a bounded estimate (absent: exact)")


Json = dict[str, Any]
OptStr = Optional[str]
