"""Request/response bodies of /api/auth/*."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class RegisterRequest(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    name: str = Field(min_length=1, max_length=120)
    email: str = Field(min_length=3, max_length=254)
    password: str = Field(min_length=1, max_length=256)
    phone: str = Field(min_length=1, max_length=32)
    college: str | None = Field(default=None, max_length=200)


class LoginRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    email: str = Field(min_length=1, max_length=254)
    password: str = Field(min_length=1, max_length=256)


class UserSummary(BaseModel):
    id: str
    name: str
    email: str
    role: str


class AuthResponse(BaseModel):
    success: bool = True
    user: UserSummary
    token: str
