"""Query models shared by several routes' OpenAPI documentation (``lambdakit.openapi.doc``).

Handlers read query parameters with ``lambdakit.http.query``/``page_request``; these
models only describe them. They are imported when the OpenAPI document is built, never
at cold start.
"""
from __future__ import annotations

from pydantic import ConfigDict, Field

from lambdakit.model import Model


class PageQuery(Model):
    """``page`` ≥ 1 and ``limit`` 1..100 (default 20)."""
    model_config = ConfigDict(extra="ignore")

    page: int | None = Field(default=None, ge=1, description="1-based page number (default 1)")
    limit: int | None = Field(default=None, ge=1, le=100, description="Page size (default 20, max 100)")


class CursorPageQuery(PageQuery):
    cursor: str | None = Field(default=None, description="Opaque cursor from a previous next_cursor")


class AttemptTokenQuery(Model):
    """Guests authenticate with the attempt token (or the ``x-attempt-token`` header)."""
    model_config = ConfigDict(extra="ignore")

    attempt_token: str | None = Field(default=None, description="The guest's attempt token")


class ClientScopeQuery(Model):
    model_config = ConfigDict(extra="ignore")

    client_id: str | None = Field(default=None, description="Tenant (super admins); client admins: their own")


class ClientPageQuery(PageQuery):
    client_id: str | None = Field(default=None, description="Tenant (super admins); client admins: their own")


class Deleted(Model):
    id: str
    deleted: bool
