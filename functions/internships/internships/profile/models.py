"""Profile update body (snake_case, as the spec lists the fields)."""
from __future__ import annotations

import datetime as dt

from pydantic import ConfigDict, Field, field_validator

from lambdakit.model import Model
from lambdakit.validated import WebUrl

from ..accounts.models import PublicUser
from ..accounts.phones import OptionalPhone


class ProfileUpdate(Model):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    name: str | None = Field(default=None, min_length=1, max_length=120)
    phone: OptionalPhone = None  # required once set: null or "" is refused (profile.service)
    college: str | None = Field(default=None, max_length=200)
    degree: str | None = Field(default=None, max_length=120)
    branch: str | None = Field(default=None, max_length=120)
    year_of_study: int | None = Field(default=None, ge=1, le=10)
    graduation_year: int | None = Field(default=None, ge=1950, le=2100)
    birthday: str | None = Field(default=None, max_length=10)
    gender: str | None = Field(default=None, max_length=30)
    city: str | None = Field(default=None, max_length=100)
    state: str | None = Field(default=None, max_length=100)
    country: str | None = Field(default=None, max_length=100)
    linkedin_url: WebUrl | None = Field(default=None, max_length=300)
    github_url: WebUrl | None = Field(default=None, max_length=300)
    # immutable; accepted only when unchanged
    email: str | None = None
    role: str | None = None

    @field_validator("birthday")
    @classmethod
    def _birthday(cls, v):
        if v in (None, ""):
            return v
        try:
            d = dt.date.fromisoformat(v)
        except ValueError:
            raise ValueError("birthday must be a date (YYYY-MM-DD)") from None
        if d.year < 1900 or d > dt.date.today():
            raise ValueError("birthday is out of range")
        return d.isoformat()


# ---------------------------------------------------------------- response bodies (OpenAPI)
class ProfileResponse(Model):
    success: bool
    profile: PublicUser


class AvatarResponse(Model):
    success: bool
    avatarUrl: str


class ProxyImageQuery(Model):
    url: str = Field(description="https URL of an image on an allow-listed avatar host")
