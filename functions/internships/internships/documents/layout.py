"""The certificate layout: what an admin certificate template sets (``CertificateLayout``) and the
active template's layout the certificate PDF renders (``active_layout``).

ADMIN manages the templates (``admin_learning.cert_templates``); this package only reads the active
one, through ``repository`` (keys ``CERTTPL#<id>`` and the ``CERTTPL``/``ACTIVE`` pointer).
"""
from __future__ import annotations

import re
from typing import Literal

from pydantic import ConfigDict, Field, StrictBool, field_validator

from lambdakit.model import Model

from . import repository as repo

HEX = r"^#[0-9A-Fa-f]{6}$"
PLACEHOLDERS = {"studentName", "domainName", "duration", "issueDate", "certificateId", "expiryAt"}


class CertificateLayout(Model):
    """What the certificate PDF renders. Text fields may use {studentName}, {domainName},
    {duration}, {issueDate}, {certificateId}, {expiryAt}."""
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    orientation: Literal["landscape", "portrait"] = "landscape"
    page_size: Literal["A4", "Letter"] = "A4"
    font: Literal["helvetica", "times", "courier"] = "helvetica"
    background_color: str = Field(default="#FFFFFF", pattern=HEX)
    accent_color: str = Field(default="#1F4E79", pattern=HEX)
    text_color: str = Field(default="#222222", pattern=HEX)
    title: str = Field(default="Certificate of Completion", max_length=120)
    subtitle: str = Field(default="This is to certify that", max_length=200)
    body: str = Field(default="{studentName} has successfully completed a {duration}-month internship in {domainName}.",
                      max_length=1000)
    signature_name: str = Field(default="", max_length=100)
    signature_title: str = Field(default="", max_length=100)
    footer: str = Field(default="Certificate ID: {certificateId} - Issued {issueDate}", max_length=300)
    show_qr: StrictBool = True
    border: StrictBool = True

    @field_validator("title", "subtitle", "body", "footer", "signature_name", "signature_title")
    @classmethod
    def _placeholders(cls, v: str) -> str:
        for name in re.findall(r"\{(\w*)\}", v):
            if name not in PLACEHOLDERS:
                raise ValueError(f"unknown placeholder {{{name}}}; allowed: {', '.join(sorted(PLACEHOLDERS))}")
        return v


def active_layout() -> dict | None:
    """The layout of the active template (all fields filled with defaults), or None: then the
    built-in default layout applies."""
    pointer = repo.active_template_pointer()
    if not pointer:
        return None
    t = repo.certificate_template(pointer["template_id"])
    if not t:
        return None
    return {**CertificateLayout.model_validate(t.get("layout") or {}).model_dump(), "template_id": t["id"]}
