"""Response bodies of /health and /api (documentation only)."""
from __future__ import annotations

from pydantic import BaseModel


class Health(BaseModel):
    status: str
    version: str
    timestamp: str


class KeyCheck(BaseModel):
    key_id: str
    name: str
    scopes: list[str]
    plan: str
    role: str | None = None
