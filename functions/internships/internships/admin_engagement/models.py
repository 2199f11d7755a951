"""Bodies of the admin engagement routes."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..mail.templates import ALL_KINDS


class EmailAction(BaseModel):
    model_config = ConfigDict(extra="ignore")
    emailId: str = Field(min_length=1, max_length=64)


class JobsRefresh(BaseModel):
    model_config = ConfigDict(extra="ignore")
    query: str = Field(min_length=1, max_length=100)


class TestEmail(BaseModel):
    model_config = ConfigDict(extra="ignore")
    template: str
    to: str | None = None

    @field_validator("template")
    @classmethod
    def _tpl(cls, v):
        if v not in ALL_KINDS:
            raise ValueError("template must be one of " + ", ".join(ALL_KINDS[:12]))
        return v

    @field_validator("to", mode="before")
    @classmethod
    def _to(cls, v):
        if v in (None, ""):
            return None
        from ..forms.models import normalise_email

        return normalise_email(v)
