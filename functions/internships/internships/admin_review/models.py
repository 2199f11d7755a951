from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ApproveEnrollment(BaseModel):
    model_config = ConfigDict(extra="ignore")

    force: bool = False
