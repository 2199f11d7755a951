"""Health body (OpenAPI)."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Health(BaseModel):
    model_config = ConfigDict(extra="allow", defer_build=True)

    success: bool
    status: str
    version: str
    timestamp: str
