"""Response bodies of /health and /api (documentation only)."""
from __future__ import annotations

from lambdakit.model import Model


class Health(Model):
    status: str
    version: str
    timestamp: str


class KeyCheck(Model):
    key_id: str
    name: str
    scopes: list[str]
    plan: str
    role: str | None = None
