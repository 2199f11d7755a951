"""Domain (programme track) bodies. Admin fields fixed by the issue:
``{name, slug, description, prices: {"1","2","3"}: INR, milestones: [{title, description}], is_active}``."""
from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, ConfigDict, Field, field_validator

from lambdakit.model import Model
from lambdakit.validated import URL_PATTERN, WebUrl

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_MILESTONES = 20
MILESTONES_TEXT = f"The plan's milestones, in order (at most {MAX_MILESTONES})"
FAQ_URL_MAX_LENGTH = 500


def _https(v: str | None) -> str | None:
    if v and not v.lower().startswith("https://"):
        raise ValueError("must be an https URL")
    return v


#: The domain's FAQ page (issue 35, the measured field): set by admins, shown on the public domain routes.
FaqUrl = Annotated[WebUrl, AfterValidator(_https), Field(
    max_length=FAQ_URL_MAX_LENGTH, json_schema_extra={"format": "uri", "pattern": URL_PATTERN.replace("https?", "https")},
    description=f"The domain's FAQ page: an https URL of at most {FAQ_URL_MAX_LENGTH} characters (absent when "
                "none; an update with \"\" removes it)")]


class MilestonePlan(Model):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    title: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=4000)


def _check_prices(v: dict | None) -> dict | None:
    if v is None:
        return v
    if not isinstance(v, dict):
        raise ValueError("prices must be an object keyed by duration")
    out = {}
    for k, price in v.items():
        if str(k) not in ("1", "2", "3"):
            raise ValueError("price keys must be \"1\", \"2\" or \"3\"")
        if isinstance(price, bool) or not isinstance(price, (int, float)) or price < 0 or price > 10_000_000:
            raise ValueError("prices must be non-negative numbers (INR)")
        out[str(k)] = round(float(price), 2)
    return out


def _check_slug(v: str | None) -> str | None:
    if v is not None and not SLUG.match(v):
        raise ValueError("slug must be lower-case letters, digits and single dashes")
    return v


class _DomainRules(Model):
    @field_validator("prices", mode="before", check_fields=False)
    @classmethod
    def _prices(cls, v):
        return _check_prices(v)

    @field_validator("slug", check_fields=False)
    @classmethod
    def _slug(cls, v):
        return _check_slug(v)


class DomainExtras(Model):
    """A domain's optional fields, declared once: admins set them (``DomainIn``, ``DomainPatch``), the
    public and admin views show them (``PublicDomain``, ``admin_catalog.models.AdminDomain``)."""

    faq_url: FaqUrl | None = None


class DomainIn(_DomainRules, DomainExtras):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    name: str = Field(min_length=1, max_length=120)
    slug: str | None = Field(default=None, min_length=1, max_length=80)
    description: str = Field(default="", max_length=10_000)
    prices: dict[str, float] = Field(min_length=1)
    milestones: list[MilestonePlan] = Field(default_factory=list, max_length=MAX_MILESTONES,
                                            description=MILESTONES_TEXT)
    is_active: bool = True


class DomainPatch(_DomainRules, DomainExtras):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    name: str | None = Field(default=None, min_length=1, max_length=120)
    slug: str | None = Field(default=None, min_length=1, max_length=80)
    description: str | None = Field(default=None, max_length=10_000)
    prices: dict[str, float] | None = Field(default=None, min_length=1)
    milestones: list[MilestonePlan] | None = Field(default=None, max_length=MAX_MILESTONES,
                                                   description=MILESTONES_TEXT)
    is_active: bool | None = None


class CouponValidateRequest(Model):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    code: str = Field(min_length=1, max_length=40)
    domainId: str | None = Field(default=None, max_length=64)
    amount: float | None = Field(default=None, ge=0, le=10_000_000)


# ---------------------------------------------------------------- response bodies (OpenAPI)
# Every answer is dumped through these models (issue 35): ``service.public_view`` hands over the stored
# domain and only what ``PublicDomain`` declares is shown (admins see ``admin_catalog.models.AdminDomain``).
class PublicDomain(DomainExtras):
    id: str
    name: str
    slug: str
    description: str
    prices: dict[str, float] = Field(description="INR by duration in months (\"1\", \"2\", \"3\")")
    durations: list[int]
    milestones: list[MilestonePlan]
    is_active: bool


class DomainList(Model):
    success: bool
    domains: list[PublicDomain]


class DomainOne(Model):
    success: bool
    domain: PublicDomain


class PublicCoupon(Model):
    code: str
    discount_type: str
    discount_value: float
    expires_at: str | None = None


class CouponValidation(Model):
    success: bool
    valid: bool
    discount: float
    coupon: PublicCoupon | None
    finalAmount: float | None = None
    message: str | None = None
