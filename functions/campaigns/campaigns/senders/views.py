"""The public view of a sender (``Sender``, its DKIM records), apart from the registration body
(``models``, which re-exports them): listing, showing and sending validate with it without
defining that body (issue 21)."""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field

from ..common.view import View


class DnsRecord(View):
    name: str
    type: Literal["CNAME"] = "CNAME"
    value: str


class Dkim(View):
    status: Optional[str] = None
    tokens: list[str] = Field(default_factory=list)
    records: list[DnsRecord] = Field(default_factory=list, description="CNAME records to publish (domains)")


class Sender(View):
    id: str
    identity: str
    type: Literal["email", "domain"]
    status: Literal["pending", "verified", "failed"] = Field(
        description="verified: usable as from_email (the address, or any address at the domain)")
    dkim: Optional[Dkim] = None
    created_at: str
    updated_at: str
    verified_at: Optional[str] = None
