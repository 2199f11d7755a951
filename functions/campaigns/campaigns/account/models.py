"""Bodies of /account."""
from __future__ import annotations

from typing import Optional

from pydantic import ConfigDict, Field, field_validator

from lambdakit.model import Model

from ..common.view import View


def clean_postal_address(value: str) -> str:
    """Lines trimmed, blank lines dropped, at most 6 lines; control characters refused."""
    if any((ord(c) < 32 and c not in "\n\r\t") or ord(c) == 127 for c in value):
        raise ValueError("must not contain control characters")
    lines = [" ".join(line.split()) for line in value.replace("\r\n", "\n").split("\n")]
    lines = [line for line in lines if line]
    if len(lines) > 6:
        raise ValueError("at most 6 lines")
    return "\n".join(lines)


class AccountUpdate(Model):
    """``postal_address``: the sender's physical postal address printed in the footer of every
    campaign and bulk mail (CAN-SPAM). Several lines allowed (at most 6); ``""`` clears it."""
    model_config = ConfigDict(extra="forbid")
    postal_address: str = Field(max_length=500, description="Printed in every marketing mail's footer")

    @field_validator("postal_address")
    @classmethod
    def _clean(cls, v: str) -> str:
        return clean_postal_address(v)


class Account(View):
    account_id: str
    postal_address: str = Field(description="Empty: campaign details show a compliance warning")
    compliance_warnings: list[str] = Field(default_factory=list)
    updated_at: Optional[str] = None
