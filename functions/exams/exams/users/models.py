"""Request and response bodies of the users routes."""
from __future__ import annotations

import re
from typing import Literal

from pydantic import ConfigDict, EmailStr, Field, field_validator

from lambdakit.model import Model

from ..apidoc import ClientPageQuery
from ..identity.principal import ROLES
from .views import CreatedUser, Profile

__all__ = ["CreateUser", "UpdateProfile", "Profile", "CreatedUser", "ProfileQuery"]


class CreateUser(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    email: EmailStr
    password: str = Field(min_length=8, max_length=256)
    name: str = Field(min_length=1, max_length=200)
    role: str = "student"
    client_id: str | None = None

    @field_validator("email")
    @classmethod
    def _lower(cls, v: str) -> str:
        return v.lower()

    @field_validator("role")
    @classmethod
    def _role(cls, v: str) -> str:
        if v not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}")
        return v

    @field_validator("password")
    @classmethod
    def _password(cls, v: str) -> str:
        if not (re.search(r"[a-z]", v) and re.search(r"[A-Z]", v) and re.search(r"[0-9]", v)):
            raise ValueError("password needs at least one lowercase letter, one uppercase letter and one digit")
        return v


class UpdateProfile(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    name: str | None = Field(default=None, min_length=1, max_length=200)
    role: str | None = None
    client_id: str | None = None
    active_status: int | None = Field(default=None, ge=0, le=1)

    @field_validator("role")
    @classmethod
    def _role(cls, v: str | None) -> str | None:
        if v is not None and v not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}")
        return v

    @field_validator("name", "role", "active_status")
    @classmethod
    def _not_null(cls, v):
        # omitted = unchanged; an explicit null would blank a required field (validators do not run on defaults)
        if v is None:
            raise ValueError("must not be null (omit the field to keep it)")
        return v


class ProfileQuery(ClientPageQuery):
    role: Literal["super_admin", "client_admin", "student"] | None = None
