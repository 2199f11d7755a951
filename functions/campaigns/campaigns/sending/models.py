"""Request bodies of /email/send and /email/bulk (the spec's outbound shape plus ``provider``)."""
from __future__ import annotations

import base64
import binascii
from typing import Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from lambdakit.validated import FreeDict

from ..common.pages import CursorPage
from .fields import Email, ProviderConfig, TrackingOptions

MAX_TOTAL_BYTES = 10 * 1024 * 1024


class AttachmentIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    filename: str = Field(min_length=1, max_length=255)
    content: str
    type: str = Field(default="application/octet-stream", max_length=255)

    @field_validator("filename")
    @classmethod
    def _name(cls, v: str) -> str:
        if any(c in v for c in "\r\n\"/\\"):
            raise ValueError("filename must not contain quotes, slashes or line breaks")
        return v

    @field_validator("type")
    @classmethod
    def _type(cls, v: str) -> str:
        main, _, sub = v.partition("/")
        if not main or not sub or any(c in v for c in "\r\n;"):
            raise ValueError("type must be a MIME type such as application/pdf")
        return v

    def decoded(self) -> bytes:
        return base64.b64decode(self.content, validate=True)

    @field_validator("content")
    @classmethod
    def _b64(cls, v: str) -> str:
        try:
            base64.b64decode(v, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("content must be base64") from None
        return v


class _Content(BaseModel):
    model_config = ConfigDict(extra="ignore")
    subject: Optional[str] = Field(default=None, max_length=998)
    html: Optional[str] = Field(default=None, max_length=2_000_000)
    text: Optional[str] = Field(default=None, max_length=2_000_000)
    template_id: Optional[str] = Field(default=None, max_length=100)
    variables: FreeDict = Field(default_factory=dict)
    tracking: TrackingOptions = Field(default_factory=TrackingOptions)
    metadata: FreeDict = Field(default_factory=dict)
    provider: Optional[ProviderConfig] = None
    from_email: Optional[Email] = None
    from_name: Optional[str] = Field(default=None, max_length=200)
    reply_to: Optional[Email] = None

    @model_validator(mode="after")
    def _need_content(self):
        if not self.template_id:
            if not self.subject:
                raise ValueError("subject is required (or a template_id)")
            if not (self.html or self.text):
                raise ValueError("html or text is required (or a template_id)")
        return self


class SendEmail(_Content):
    to: Email
    cc: list[Email] = Field(default_factory=list, max_length=50)
    bcc: list[Email] = Field(default_factory=list, max_length=50)
    attachments: list[AttachmentIn] = Field(default_factory=list, max_length=20)


class BulkRecipient(BaseModel):
    model_config = ConfigDict(extra="ignore")
    to: Email
    variables: FreeDict = Field(default_factory=dict)


class BulkSend(_Content):
    recipients: list[BulkRecipient] = Field(min_length=1, max_length=10_000)
    send_in_parallel: bool = True
    batch_size: int = Field(default=100, ge=1, le=1000)


# ---------------------------------------------------------------- documentation models (OpenAPI)
class SendOut(BaseModel):
    message_id: Optional[str] = None
    status: str
    provider: str
    to: str


class BulkQueued(BaseModel):
    bulk_id: str
    total: int
    queued: int
    batches: int
    status: str


class BulkProgress(BaseModel):
    model_config = ConfigDict(extra="allow")
    bulk_id: str
    status: str
    total: int
    queued: int
    processed: int
    sent: int
    delivered: int
    bounced: int
    failed: int
    suppressed: int
    batches_total: int
    batches_done: int
    progress: float
    provider: Optional[str] = None
    created_at: str
    completed_at: Optional[str] = None


class OutboxQuery(BaseModel):
    to: Optional[str] = None
    campaign_id: Optional[str] = None
    bulk_id: Optional[str] = None
    limit: Optional[int] = Field(default=None, ge=1, le=100)
    cursor: Optional[str] = None


class OutboxMessage(BaseModel):
    id: str
    to: str
    cc: Optional[list[str]] = None
    bcc: Optional[list[str]] = None
    from_: Optional[str] = Field(default=None, alias="from")
    reply_to: Optional[str] = None
    subject: Optional[str] = None
    html: Optional[str] = None
    text: Optional[str] = None
    headers: Optional[dict[str, str]] = None
    provider: Optional[str] = None
    campaign_id: Optional[str] = None
    bulk_id: Optional[str] = None
    attachments: Optional[list[dict]] = None
    metadata: Optional[dict] = None
    simulated: Optional[str] = None
    sent_at: Optional[str] = None


class OutboxPage(BaseModel):
    messages: list[OutboxMessage]
    pagination: CursorPage
