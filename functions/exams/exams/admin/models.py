"""Request bodies of the admin routes."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SettingsUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    maintenance_mode: bool | None = None
    announcement_banner: str | None = Field(default=None, max_length=1000)
    registration_enabled: bool | None = None
