"""Request/response bodies of /api/auth/*."""
from __future__ import annotations

from pydantic import ConfigDict, Field

from lambdakit.model import Model

from .phones import Phone


class RegisterRequest(Model):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    name: str = Field(min_length=1, max_length=120)
    email: str = Field(min_length=3, max_length=254)
    password: str = Field(min_length=1, max_length=256)
    phone: Phone
    college: str | None = Field(default=None, max_length=200)


class LoginRequest(Model):
    model_config = ConfigDict(extra="ignore")

    email: str = Field(min_length=1, max_length=254)
    password: str = Field(min_length=1, max_length=256)


class UserSummary(Model):
    id: str
    name: str
    email: str
    role: str


class AuthResponse(Model):
    success: bool = True
    user: UserSummary
    token: str


# ---------------------------------------------------------------- response bodies (OpenAPI)
# Every answer is dumped through these models (issue 35): a stored attribute reaches the client only
# when it is declared here (secrets, counters and storage keys are not).
class PublicUser(Model):
    """The signed-in user's own account (``/api/auth/me``, ``/api/profile``); profile fields appear once set."""

    id: str
    email: str
    name: str | None = None
    role: str
    has_password: bool
    email_verified: bool | None = Field(default=None, description="true once Google proved the e-mail address "
                                                                  "(Google sign-up, or Google taking over an "
                                                                  "account never linked); absent otherwise")
    phone: str | None = None
    college: str | None = None
    degree: str | None = None
    branch: str | None = None
    year_of_study: int | None = None
    graduation_year: int | None = None
    birthday: str | None = None
    gender: str | None = None
    city: str | None = None
    state: str | None = None
    country: str | None = None
    linkedin_url: str | None = None
    github_url: str | None = None
    avatar_url: str | None = None
    disabled: bool | None = Field(default=None, description="set by an administrator (a disabled account cannot "
                                                            "sign in)")
    created_at: str | None = None
    updated_at: str | None = None


class MeResponse(Model):
    success: bool
    user: PublicUser


class PermissionsResponse(Model):
    success: bool
    role: str
    permissions: list[str]


class MessageResponse(Model):
    success: bool
    message: str


class ResetPasswordRequest(Model):
    """``POST /api/auth/reset-password``: the token from the set-password e-mail and the new password."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    token: str = Field(min_length=1, max_length=200)
    password: str = Field(min_length=1, max_length=256)
