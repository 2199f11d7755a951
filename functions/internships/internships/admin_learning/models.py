from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

HEX = r"^#[0-9A-Fa-f]{6}$"
PLACEHOLDERS = {"studentName", "domainName", "duration", "issueDate", "certificateId", "expiryAt"}


class CertificateLayout(BaseModel):
    """What the certificate PDF renders. Text fields may use {studentName}, {domainName},
    {duration}, {issueDate}, {certificateId}, {expiryAt}."""
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    orientation: Literal["landscape", "portrait"] = "landscape"
    page_size: Literal["A4", "Letter"] = "A4"
    font: Literal["helvetica", "times", "courier"] = "helvetica"
    background_color: str = Field("#FFFFFF", pattern=HEX)
    accent_color: str = Field("#1F4E79", pattern=HEX)
    text_color: str = Field("#222222", pattern=HEX)
    title: str = Field("Certificate of Completion", max_length=120)
    subtitle: str = Field("This is to certify that", max_length=200)
    body: str = Field("{studentName} has successfully completed a {duration}-month internship in {domainName}.",
                      max_length=1000)
    signature_name: str = Field("", max_length=100)
    signature_title: str = Field("", max_length=100)
    footer: str = Field("Certificate ID: {certificateId} - Issued {issueDate}", max_length=300)
    show_qr: StrictBool = True
    border: StrictBool = True

    @field_validator("title", "subtitle", "body", "footer", "signature_name", "signature_title")
    @classmethod
    def _placeholders(cls, v: str) -> str:
        for name in re.findall(r"\{(\w*)\}", v):
            if name not in PLACEHOLDERS:
                raise ValueError(f"unknown placeholder {{{name}}}; allowed: {', '.join(sorted(PLACEHOLDERS))}")
        return v


class TemplateCreate(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    name: str = Field(min_length=1, max_length=120)
    description: str = Field("", max_length=1000)
    layout: CertificateLayout = Field(default_factory=CertificateLayout)
    is_active: StrictBool = False


class TemplateUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    name: Optional[str] = Field(None, min_length=1, max_length=120)
    description: Optional[str] = Field(None, max_length=1000)
    layout: Optional[CertificateLayout] = None
    is_active: Optional[StrictBool] = None
