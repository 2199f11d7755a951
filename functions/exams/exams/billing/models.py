"""Request bodies of the billing routes (the response bodies are in ``views``, re-exported here)."""
from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import ConfigDict, Field, field_validator

from lambdakit.model import Model

from ..apidoc import PageQuery
from .catalog import PACKAGE_TYPES, PLAN_IDS
from .views import Package, PlanView, Subscription, SubscriptionRequest

__all__ = ["SubscriptionUpdate", "SubscriptionRequestCreate", "PackageRequestCreate", "PackageApproval",
           "PackageRequestsQuery", "Package", "PlanView", "Subscription", "SubscriptionRequest"]


def _plan(v: str) -> str:
    if v not in PLAN_IDS:
        raise ValueError(f"plan_id must be one of {', '.join(PLAN_IDS)}")
    return v


class SubscriptionUpdate(Model):
    model_config = ConfigDict(extra="forbid")

    plan_id: str
    expiry_date: str | None = None  # YYYY-MM-DD; null = never (or one month for paid plans when omitted)

    _p = field_validator("plan_id")(classmethod(lambda cls, v: _plan(v)))

    @field_validator("expiry_date")
    @classmethod
    def _date(cls, v: str | None) -> str | None:
        if v is None:
            return v
        try:
            return dt.date.fromisoformat(v).isoformat() if len(v) == 10 else _bad()
        except ValueError:
            raise ValueError("expiry_date must be a date YYYY-MM-DD") from None


def _bad():
    raise ValueError("expiry_date must be a date YYYY-MM-DD")


class SubscriptionRequestCreate(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    plan_id: str
    note: str | None = Field(default=None, max_length=1000)

    _p = field_validator("plan_id")(classmethod(lambda cls, v: _plan(v)))


class PackageRequestCreate(Model):
    model_config = ConfigDict(extra="forbid")

    package_type: str = Field(description=(
        "base, basic, standard, professional or placement_drive; the spec's display names (`Basic`, "
        "`Placement Drive`) are accepted too"))

    @field_validator("package_type")
    @classmethod
    def _type(cls, v: str) -> str:
        v = "_".join(v.strip().lower().replace("-", " ").split())  # "Placement Drive" → placement_drive
        if v not in PACKAGE_TYPES:
            raise ValueError(f"package_type must be one of {', '.join(PACKAGE_TYPES)}")
        return v


class PackageApproval(Model):
    """Optional limit overrides applied when the package becomes available."""
    model_config = ConfigDict(extra="forbid")

    max_questions: int | None = Field(default=None, ge=1, le=10_000)
    max_candidates: int | None = Field(default=None, ge=1, le=100_000)


class PackageRequestsQuery(PageQuery):
    status: Literal["requested", "available", "used"] | None = None
