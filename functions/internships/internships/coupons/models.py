"""Coupon bodies. Admin fields fixed by the issue:
``{code, discount_type: "percent"|"flat", discount_value, max_uses, expires_at, domain_ids, is_active}``."""
from __future__ import annotations

import re
from typing import Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from lambdakit.model import Model

CODE = re.compile(r"^[A-Z0-9][A-Z0-9_-]{1,39}$")


def _code(v: str | None) -> str | None:
    if v is None:
        return v
    v = v.strip().upper()
    if not CODE.match(v):
        raise ValueError("code must be 2-40 letters, digits, '-' or '_'")
    return v


def _expires(v: str | None) -> str | None:
    if v is None or v == "":
        return None
    from lambdakit import clock

    try:
        return clock.iso(clock.parse_iso(v))
    except (ValueError, TypeError):
        raise ValueError("expires_at must be an ISO 8601 date or timestamp") from None


class _CouponRules(Model):
    @field_validator("code", check_fields=False)
    @classmethod
    def _c(cls, v):
        return _code(v)

    @field_validator("expires_at", check_fields=False)
    @classmethod
    def _e(cls, v):
        return _expires(v)

    @field_validator("discount_value", check_fields=False)
    @classmethod
    def _cents(cls, v):
        # Amounts and percentages are kept to two decimals; a positive value that rounds to 0
        # (fuzzing sent 5e-324, which DynamoDB cannot store) is refused rather than stored.
        if v is None:
            return v
        v = round(float(v), 2)
        if v <= 0:
            raise ValueError("must be at least 0.01")
        return v


class CouponIn(_CouponRules):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    code: str
    discount_type: Literal["percent", "flat"]
    discount_value: float = Field(gt=0, le=10_000_000)
    max_uses: int | None = Field(default=None, ge=1, le=10_000_000)
    expires_at: str | None = None
    domain_ids: list[str] = Field(default_factory=list, max_length=200)
    is_active: bool = True


    @model_validator(mode="after")
    def _percent(self):
        if self.discount_type == "percent" and self.discount_value > 100:
            raise ValueError("a percent discount cannot exceed 100")
        return self


class CouponPatch(_CouponRules):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    code: str | None = None
    discount_type: Literal["percent", "flat"] | None = None
    discount_value: float | None = Field(default=None, gt=0, le=10_000_000)
    max_uses: int | None = Field(default=None, ge=1, le=10_000_000)
    expires_at: str | None = None
    domain_ids: list[str] | None = Field(default=None, max_length=200)
    is_active: bool | None = None

