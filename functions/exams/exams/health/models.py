"""Response bodies of GET /health and GET / (OpenAPI)."""
from __future__ import annotations

from pydantic import ConfigDict

from lambdakit.model import Model


class Health(Model):
    model_config = ConfigDict(extra="allow")

    status: str
    timestamp: str
    version: str
    checks: dict[str, str]


class ServiceInfo(Model):
    model_config = ConfigDict(extra="allow")

    name: str
    version: str
    status: str
    announcement_banner: str | None = None
