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
class _Out(Model):
    model_config = ConfigDict(extra="allow", defer_build=True)


class PublicUser(_Out):
    """The stored user without secrets (password hash, token version...)."""

    id: str
    email: str
    name: str | None = None
    role: str
    has_password: bool
    email_verified: bool | None = Field(default=None, description="true once Google proved the e-mail address "
                                                                  "(Google sign-up, or Google taking over an "
                                                                  "account never linked); absent otherwise")


class MeResponse(_Out):
    success: bool
    user: PublicUser


class PermissionsResponse(_Out):
    success: bool
    role: str
    permissions: list[str]


class MessageResponse(_Out):
    success: bool
    message: str


class ResetPasswordRequest(Model):
    """``POST /api/auth/reset-password``: the token from the set-password e-mail and the new password."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    token: str = Field(min_length=1, max_length=200)
    password: str = Field(min_length=1, max_length=256)
