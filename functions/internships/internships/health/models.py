"""Health body (OpenAPI)."""
from __future__ import annotations

from pydantic import ConfigDict

from lambdakit.model import Model


class HealthIssue(Model):
    code: str
    message: str


class Health(Model):
    model_config = ConfigDict(extra="allow", defer_build=True)

    success: bool
    status: str
    version: str
    timestamp: str
    issues: list[HealthIssue] = []
