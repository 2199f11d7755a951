"""Attachment rules: the upload form, and resolving a send's attachments (inline or uploaded)
against the caller's account and the real size limits (see ``limits``)."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Protocol, Sequence

from lambdakit import clock, ids
from lambdakit.errors import ValidationFailed

from ..settings import settings
from . import limits
from . import repository as repo

if TYPE_CHECKING:  # the send path (the send worker) never defines the upload route's models
    from .models import AttachmentCreate


class Item(Protocol):
    """An attachment of a send request (sending's ``AttachmentIn`` or ``AttachmentRef``)."""
    @property
    def filename(self) -> Optional[str]: ...

    @property
    def type(self) -> Optional[str]: ...

    @property
    def attachment_id(self) -> Optional[str]: ...


@dataclass
class Resolved:
    """One attachment of a send: inline bytes, or a verified upload (read when composing)."""
    filename: str
    type: str
    size: int
    content: bytes | None = None
    attachment_id: str | None = None

    def ref(self) -> dict:
        return {"attachment_id": self.attachment_id, "filename": self.filename, "type": self.type, "size": self.size}


def create_upload(account_id: str, body: AttachmentCreate) -> dict:
    aid = ids.sortable_id().lower()
    ttl = settings().presign_ttl_seconds
    up = repo.presigned_upload(repo.key(account_id, aid), filename=body.filename, content_type=body.type,
                               max_bytes=limits.UPLOAD_MAX_BYTES, ttl=ttl)
    return {"attachment_id": aid, "filename": body.filename, "type": body.type, "max_bytes": limits.UPLOAD_MAX_BYTES,
            "expires_at": clock.iso(clock.now() + dt.timedelta(seconds=ttl)),
            "upload": {"method": "POST", "url": up["url"], "fields": up["fields"],
                       "max_bytes": limits.UPLOAD_MAX_BYTES, "expires_in": ttl}}


def resolve(account_id: str, items: Sequence[Item], *, html: str | None, text: str | None) -> list[Resolved]:
    """Check every attachment (uploads: present under the caller's account, within the size
    limit) and the whole message against SES's 40 MB; ``ValidationFailed`` on ``attachments``."""
    out: list[Resolved] = []
    inline_total = 0
    for i, a in enumerate(items):
        content = getattr(a, "content", None)
        if content is not None:
            data = a.decoded()  # type: ignore[attr-defined]
            inline_total += len(data)
            out.append(Resolved(a.filename or "attachment", a.type or "application/octet-stream", len(data), data))
            continue
        if a.attachment_id is None:
            raise ValidationFailed("Invalid attachment", fields={f"attachments.{i}": "content or attachment_id"})
        stored = repo.head(repo.key(account_id, a.attachment_id))
        if stored is None:
            raise ValidationFailed("Unknown attachment", fields={
                f"attachments.{i}.attachment_id": "No uploaded attachment with this id in your account (uploads "
                                                  "expire after a day)"})
        if stored.size > limits.UPLOAD_MAX_BYTES:
            raise ValidationFailed("Attachment too large", fields={
                f"attachments.{i}.attachment_id": f"Attachments are at most {limits.UPLOAD_MAX_BYTES} bytes"})
        out.append(Resolved(a.filename or stored.filename or "attachment", a.type or stored.type, stored.size,
                            attachment_id=a.attachment_id))
    if inline_total > limits.INLINE_MAX_TOTAL_BYTES:
        raise ValidationFailed("Inline attachments are too large", fields={
            "attachments": f"Inline (base64) attachments are at most {limits.INLINE_MAX_TOTAL_BYTES} bytes in "
                           "total; upload bigger files with POST /attachments and send their attachment_id"})
    estimate = limits.message_estimate(html, text, [r.size for r in out])
    if estimate > limits.SES_MAX_MESSAGE_BYTES:
        raise ValidationFailed("Message is too large", fields={
            "attachments": f"The encoded message would be about {estimate} bytes; at most "
                           f"{limits.SES_MAX_MESSAGE_BYTES} bytes (SES, after base64 encoding) are allowed"})
    return out


class AttachmentGone(Exception):
    """An uploaded attachment is no longer stored (expired)."""


def load(account_id: str, refs: list[dict]) -> list[tuple[str, bytes, str]]:
    """``(filename, content, type)`` of stored uploads, read from S3 when composing."""
    out = []
    for r in refs:
        data = repo.read(repo.key(account_id, r["attachment_id"]))
        if data is None:
            raise AttachmentGone(r["attachment_id"])
        out.append((r["filename"], data, r["type"]))
    return out
