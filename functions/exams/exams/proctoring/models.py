from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class EventIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    attempt_id: str = Field(min_length=1, max_length=64)
    test_id: str | None = Field(default=None, max_length=64)
    event_type: str = Field(min_length=1, max_length=64)
    evidence: str | None = None
    metadata: dict[str, Any] | None = None
