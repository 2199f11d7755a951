from __future__ import annotations

import ipaddress
import re
from typing import Literal

from pydantic import ConfigDict, Field, field_validator

from lambdakit import clock
from lambdakit.model import Model

from ..common.view import View
from .scopes import ALL_SCOPES, normalise_role
from .views import KeyOut
from .views import KeyRestrictionsOut as KeyRestrictionsOut  # re-exported: the routes' documentation names it here

RATE_RE = re.compile(r"^\s*(\d{1,9})\s*/\s*(minute|hour|day)s?\s*$", re.I)
PLANS = ("standard", "pro", "enterprise")


def parse_rate_limit(value: str) -> tuple[int, int]:
    """``"<n>/minute|hour|day"`` → (count, window seconds)."""
    m = RATE_RE.match(value or "")
    if not m or int(m.group(1)) < 1:
        raise ValueError("must look like <count>/minute, <count>/hour or <count>/day")
    return int(m.group(1)), {"minute": 60, "hour": 3600, "day": 86400}[m.group(2).lower()]


class Restrictions(Model):
    model_config = ConfigDict(extra="forbid")

    rate_limit: str | None = None
    ip_whitelist: list[str] | None = Field(default=None, max_length=100)
    expires_at: str | None = None

    @field_validator("rate_limit")
    @classmethod
    def _rate(cls, v):
        if v is None:
            return v
        n, window = parse_rate_limit(v)
        return f"{n}/{ {60: 'minute', 3600: 'hour', 86400: 'day'}[window] }"

    @field_validator("ip_whitelist")
    @classmethod
    def _cidrs(cls, v):
        if v is None:
            return v
        out = []
        for c in v:
            try:
                out.append(str(ipaddress.ip_network(str(c).strip(), strict=False)))
            except ValueError:
                raise ValueError(f"{c!r} is not a valid IPv4 or IPv6 CIDR") from None
        return out

    @field_validator("expires_at")
    @classmethod
    def _expiry(cls, v):
        if v is None:
            return v
        try:
            dt = clock.parse_iso(v)
        except ValueError:
            raise ValueError("must be an ISO 8601 timestamp") from None
        if dt <= clock.now():
            raise ValueError("must be in the future")
        return clock.iso(dt)


class CreateKey(Model):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    scopes: list[str] | None = Field(default=None, max_length=len(ALL_SCOPES))
    role: str | None = None
    #: Omitted: the creating key's own plan (``create_key`` defaults to pro).
    plan: Literal["standard", "pro", "enterprise"] | None = None
    restrictions: Restrictions | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, v: str):
        v = v.strip()
        if not v:
            raise ValueError("must not be blank")
        return v

    @field_validator("scopes")
    @classmethod
    def _scopes(cls, v):
        if v is None:
            return v
        bad = [s for s in v if s not in ALL_SCOPES]
        if bad:
            raise ValueError(f"unknown scope(s): {', '.join(map(str, bad))}")
        if not v:
            raise ValueError("must hold at least one scope")
        return sorted(set(v))

    @field_validator("role")
    @classmethod
    def _role(cls, v):
        return normalise_role(v)


class KeyList(View):
    api_keys: list[KeyOut]
    total: int


class KeyCreated(KeyOut):
    """The record's fields, plus ``key`` (the secret, shown this once) and ``record``."""
    key: str
    record: KeyOut
