"""Building blocks of the admin routes' OpenAPI documentation (``lambdakit.openapi.doc``).

Response models describe what the routes really return: objects keep ``extra="allow"``
because stored items carry more attributes than the documented core, and optional
fields are those a route omits or sends as ``null``. Query models document the query
parameters (the handlers still parse and validate them themselves). Nothing here is
imported at cold start: routes name these models as ``"module:Class"`` strings.
"""
from __future__ import annotations

from typing import Any, Optional

from pydantic import ConfigDict, Field

from lambdakit.model import Model


class Open(Model):
    """An object whose listed fields are guaranteed; other attributes may follow."""
    model_config = ConfigDict(extra="allow", defer_build=True)


class Ok(Open):
    success: bool


class Message(Ok):
    message: str


class ListQuery(Model):
    """``page`` (≥ 1), ``limit`` (1–100, default 20), ``cursor`` (opaque, from ``nextCursor``)."""
    model_config = ConfigDict(defer_build=True)

    page: int = Field(1, ge=1, le=10_000)
    limit: int = Field(20, ge=1, le=100)
    cursor: str = Field("", max_length=2000, description="nextCursor of the previous page")


class PageQuery(Model):
    """``page`` (≥ 1) and ``limit`` (1–100, default 20)."""
    model_config = ConfigDict(defer_build=True)

    page: int = Field(1, ge=1, le=10_000)
    limit: int = Field(20, ge=1, le=100)


class DateRange(Model):
    model_config = ConfigDict(defer_build=True)

    date_from: str = Field("", description="ISO 8601 date or timestamp (inclusive)")
    date_to: str = Field("", description="ISO 8601 date (whole day) or timestamp (inclusive)")


Json = dict[str, Any]
OptStr = Optional[str]
