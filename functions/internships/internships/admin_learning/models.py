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


class EnrollmentUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    status: Optional[Literal["pending", "active", "completed", "cancelled"]] = None
    admin_notes: Optional[str] = Field(None, max_length=5000)
    submission_email: Optional[str] = Field(None, max_length=254)


class SubmissionDecision(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    remarks: str = Field("", max_length=5000)


ResourceType = Literal["video", "article", "document", "link", "file", "assignment"]


class ResourceIn(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    domain_id: str = Field(min_length=1, max_length=64)
    week: int = Field(ge=1, le=52)
    position: int = Field(0, ge=0, le=9999)
    title: str = Field(min_length=1, max_length=200)
    description: str = Field("", max_length=5000)
    resource_type: ResourceType = "link"
    url: Optional[str] = Field(None, max_length=2000, pattern=r"^https?://")
    file_key: Optional[str] = Field(None, max_length=500, pattern=r"^resources/")
    is_active: StrictBool = True


class ResourcePatch(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    domain_id: Optional[str] = Field(None, min_length=1, max_length=64)
    week: Optional[int] = Field(None, ge=1, le=52)
    position: Optional[int] = Field(None, ge=0, le=9999)
    title: Optional[str] = Field(None, min_length=1, max_length=200)
    description: Optional[str] = Field(None, max_length=5000)
    resource_type: Optional[ResourceType] = None
    url: Optional[str] = Field(None, max_length=2000, pattern=r"^https?://")
    file_key: Optional[str] = Field(None, max_length=500, pattern=r"^resources/")
    is_active: Optional[StrictBool] = None


class SignRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    filename: str = Field(min_length=1, max_length=200)
    content_type: str = Field(min_length=3, max_length=100)
    resource_type: ResourceType = "file"


class CertificateAction(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    reason: Optional[str] = Field(None, max_length=1000)


class InvoiceSend(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    to: Optional[str] = Field(None, min_length=3, max_length=254, pattern=r"^[^@\s,;<>]+@[^@\s,;<>]+\.[^@\s,;<>]+$")
