"""Health body (OpenAPI)."""
from __future__ import annotations

from lambdakit.model import Model


class HealthIssue(Model):
    code: str
    message: str


class Health(Model):
    success: bool
    status: str
    version: str
    timestamp: str
    issues: list[HealthIssue] = []
