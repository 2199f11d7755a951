"""Request bodies of /email/send and /email/bulk (the spec's outbound shape plus ``provider``)."""
from __future__ import annotations

import base64
import binascii
from typing import Any, Optional

from pydantic import ConfigDict, Field, field_validator, model_validator

from lambdakit.model import Model
from lambdakit.validated import FreeDict

from ..attachments.limits import MAX_ATTACHMENTS
from ..attachments.models import AttachmentRef, check_id
from ..common.fielderror import field_error
from ..common.headers import HeaderText
from ..common.pagedocs import CursorPage
from ..common.view import View
from .fields import Email, ProviderConfig, TrackingOptions


class AttachmentIn(Model):
    """Inline (the spec's ``filename`` + base64 ``content`` + ``type``; at most 3,000,000 bytes
    decoded for all inline attachments of a request) or uploaded through ``POST /attachments``
    (``attachment_id``; ``filename``/``type`` default to the upload's)."""
    model_config = ConfigDict(extra="ignore")
    filename: Optional[str] = Field(default=None, min_length=1, max_length=255)
    content: Optional[str] = None
    type: Optional[str] = Field(default=None, max_length=255)
    attachment_id: Optional[str] = None

    @field_validator("filename")
    @classmethod
    def _name(cls, v: str | None) -> str | None:
        if v is None:
            return v
        if any(c in v for c in "\r\n\"/\\"):
            raise ValueError("filename must not contain quotes, slashes or line breaks")
        return v

    @field_validator("type")
    @classmethod
    def _type(cls, v: str | None) -> str | None:
        if v is None:
            return v
        main, _, sub = v.partition("/")
        if not main or not sub or any(c in v for c in "\r\n;"):
            raise ValueError("type must be a MIME type such as application/pdf")
        return v

    def decoded(self) -> bytes:
        return base64.b64decode(self.content or "", validate=True)

    @field_validator("attachment_id")
    @classmethod
    def _id(cls, v: str | None) -> str | None:
        return v if v is None else check_id(v)

    @model_validator(mode="after")
    def _one_source(self):
        if (self.content is None) == (self.attachment_id is None):
            raise field_error("AttachmentIn", "content", "each attachment needs either content (base64) or attachment_id")
        if self.content is not None and not self.filename:
            raise field_error("AttachmentIn", "filename", "filename is required with content")
        return self

    @field_validator("content")
    @classmethod
    def _b64(cls, v: str | None) -> str | None:
        if v is None:
            return v
        try:
            base64.b64decode(v, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("content must be base64") from None
        return v


class _Content(Model):
    model_config = ConfigDict(extra="ignore")
    subject: Optional[HeaderText] = Field(default=None, max_length=998)
    html: Optional[str] = Field(default=None, max_length=2_000_000)
    text: Optional[str] = Field(default=None, max_length=2_000_000)
    template_id: Optional[str] = Field(default=None, max_length=100)
    variables: FreeDict = Field(default_factory=dict)
    tracking: TrackingOptions = Field(default_factory=TrackingOptions)
    metadata: FreeDict = Field(default_factory=dict)
    provider: Optional[ProviderConfig] = None
    from_email: Optional[Email] = None
    from_name: Optional[HeaderText] = Field(default=None, max_length=200)
    reply_to: Optional[Email] = None

    @model_validator(mode="after")
    def _need_content(self):
        if not self.template_id:
            if not self.subject:
                raise field_error(type(self).__name__, "subject", "subject is required (or a template_id)")
            if not (self.html or self.text):
                raise field_error(type(self).__name__, "html", "html or text is required (or a template_id)")
        return self


class SendEmail(_Content):
    to: Email
    cc: list[Email] = Field(default_factory=list, max_length=50)
    bcc: list[Email] = Field(default_factory=list, max_length=50)
    attachments: list[AttachmentIn] = Field(default_factory=list, max_length=MAX_ATTACHMENTS)
    transactional: bool = Field(default=False, description=(
        "true for a transactional message (a receipt, a password reset): no unsubscribe footer and no "
        "List-Unsubscribe headers. Default false: the message carries the marketing footer (unsubscribe "
        "link and the account's postal address) and the one-click unsubscribe headers"))

    @model_validator(mode="after")
    def _recipients(self):
        if 1 + len(self.cc) + len(self.bcc) > 50:
            raise ValueError("to, cc and bcc together are at most 50 addresses (SES's limit per message)")
        return self


class BulkRecipient(Model):
    model_config = ConfigDict(extra="ignore")
    to: Email
    variables: FreeDict = Field(default_factory=dict)


class BulkSend(_Content):
    recipients: list[BulkRecipient] = Field(min_length=1, max_length=10_000)
    send_in_parallel: bool = True
    batch_size: int = Field(default=100, ge=1, le=1000)
    #: Uploaded attachments only (``POST /attachments``), sent to every recipient.
    attachments: list[AttachmentRef] = Field(default_factory=list, max_length=MAX_ATTACHMENTS)


# ---------------------------------------------------------------- answers (issue 35: dumped through these)
class SendOut(View):
    message_id: Optional[str] = None
    status: str
    provider: str
    to: str


class BulkQueued(View):
    bulk_id: str
    total: int
    queued: int
    batches: int
    status: str = Field(description="queued: every batch is on the send queue; queueing: the queue refused some "
                                    "(an SQS failure), they wait in the bulk's outbox and the dispatcher queues them "
                                    "within about two minutes")
    batches_queued: int = Field(description="Batches on the send queue when the request answered (equal to batches "
                                            "once all are)")


class BulkProgress(View):
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


class OutboxQuery(Model):
    to: Optional[str] = None
    campaign_id: Optional[str] = None
    bulk_id: Optional[str] = None
    limit: Optional[int] = Field(default=None, ge=1, le=100)
    cursor: Optional[str] = None


class OutboxAttachment(View):
    filename: str
    type: Optional[str] = None
    size: int = Field(description="Bytes")


class OutboxMessage(View):
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
    attachments: Optional[list[OutboxAttachment]] = None
    metadata: Optional[dict[str, Any]] = Field(default=None, description="The send's metadata as given (free-form)")
    simulated: Optional[str] = None
    sent_at: Optional[str] = None


class OutboxPage(View):
    messages: list[OutboxMessage]
    pagination: CursorPage
