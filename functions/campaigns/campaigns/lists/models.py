from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, field_validator

from lambdakit.model import Model

from ..common.view import View


class ListIn(Model):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=2000)
    visibility: Literal["private", "public"] = "private"
    double_opt_in: bool = False

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        v = v.strip()
        if not v:
            raise ValueError("must not be blank")
        return v


class ListPatch(Model):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=2000)
    visibility: Literal["private", "public"] | None = None
    double_opt_in: bool | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, v):
        if v is not None and not v.strip():
            raise ValueError("must not be blank")
        return v.strip() if v else v


class ListOut(View):
    id: str
    name: str
    description: str
    visibility: str
    double_opt_in: bool
    contact_count: int
    active_count: int
    created_at: str
    updated_at: str


class ListDeleted(View):
    id: str
    deleted: bool
    detach_pending: bool
