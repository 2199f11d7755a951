"""Request and response bodies of the clients routes."""
from __future__ import annotations

from pydantic import ConfigDict, Field, field_validator

from lambdakit.model import Model
from lambdakit.validated import WebUrl

from ..billing.catalog import PLAN_IDS
from .views import Client, ClientDetail, ClientLimits, ClientSettable

__all__ = ["Limits", "CreateClient", "UpdateClient", "Client", "ClientLimits", "ClientDetail"]


def _plan(v: str | None) -> str | None:
    if v is not None and v not in PLAN_IDS:
        raise ValueError(f"plan_id must be one of {', '.join(PLAN_IDS)}")
    return v


class Limits(Model):
    """Per-client overrides of the plan (null = the plan's value, -1 = unlimited)."""
    model_config = ConfigDict(extra="forbid")

    max_exams_per_month: int | None = Field(default=None, ge=-1)
    max_students_per_exam: int | None = Field(default=None, ge=-1)
    max_questions_per_exam: int | None = Field(default=None, ge=-1)


class CreateClient(ClientSettable):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    name: str = Field(min_length=1, max_length=200)
    logo_url: WebUrl | None = Field(default=None, max_length=2048)
    plan_id: str = "free"

    _p = field_validator("plan_id")(classmethod(lambda cls, v: _plan(v)))


class UpdateClient(ClientSettable):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    name: str | None = Field(default=None, min_length=1, max_length=200)
    logo_url: WebUrl | None = Field(default=None, max_length=2048)
    active_status: int | None = Field(default=None, ge=0, le=1)
    limits: Limits | None = None

    @field_validator("name", "active_status")
    @classmethod
    def _not_null(cls, v):
        # omitted = unchanged; an explicit null would store a client without a name/status
        if v is None:
            raise ValueError("must not be null (omit the field to keep it)")
        return v
