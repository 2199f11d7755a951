"""Request and response bodies of /senders."""
from __future__ import annotations

import re
from typing import Optional

from pydantic import ConfigDict, Field, field_validator, model_validator

from lambdakit.model import Model

from ..common.emails import InvalidEmail, normalise_email
from ..common.view import View
from .views import Dkim as Dkim  # re-exported: the routes' documentation names these here
from .views import DnsRecord as DnsRecord
from .views import Sender

_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


def normalise_domain(value: str) -> str:
    """A DNS domain name (at least two labels), lower-cased and IDNA-encoded."""
    v = str(value).strip().rstrip(".").lower()
    try:
        v = v.encode("idna").decode("ascii")
    except UnicodeError:
        raise ValueError("must be a domain name such as example.com") from None
    labels = v.split(".")
    if len(v) > 253 or len(labels) < 2 or not all(_LABEL.match(x) for x in labels) or labels[-1].isdigit():
        raise ValueError("must be a domain name such as example.com")
    return v


class SenderCreate(Model):
    """Exactly one of ``email`` (a single address) or ``domain`` (every address at it)."""
    model_config = ConfigDict(extra="forbid")
    email: Optional[str] = Field(default=None, max_length=254)
    domain: Optional[str] = Field(default=None, max_length=253)

    @field_validator("email")
    @classmethod
    def _email(cls, v):
        if v is None:
            return v
        try:
            return normalise_email(v).lower()
        except InvalidEmail as exc:
            raise ValueError(str(exc)) from None

    @field_validator("domain")
    @classmethod
    def _domain(cls, v):
        return v if v is None else normalise_domain(v)

    @model_validator(mode="after")
    def _one(self):
        if (self.email is None) == (self.domain is None):
            raise ValueError("give exactly one of email or domain")
        return self

    @property
    def identity(self) -> str:
        return self.email or self.domain or ""


class SenderList(View):
    senders: list[Sender]
    total: int


class SenderDeleted(View):
    id: str
    deleted: bool
