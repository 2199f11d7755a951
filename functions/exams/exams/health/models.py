"""Response bodies of GET /health and GET / (OpenAPI)."""
from __future__ import annotations

from pydantic import Field

from lambdakit.model import Model


class Health(Model):
    status: str = Field(description="healthy or degraded")
    timestamp: str
    version: str
    checks: dict[str, str] = Field(description="Per dependency (database, identity...): ok or what failed")


class ServiceInfo(Model):
    name: str
    version: str
    status: str
    announcement_banner: str | None = Field(default=None, description="Only when set")
