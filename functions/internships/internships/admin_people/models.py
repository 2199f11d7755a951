from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictBool


class RoleUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    permissions: Optional[list[str]] = Field(None, max_length=64)
    reset: StrictBool = False
    version: Optional[int] = Field(None, ge=0)
