"""``POST /attachments`` body and answer; attachment items of /email/send and /email/bulk."""
from __future__ import annotations

import re
from typing import Optional

from pydantic import ConfigDict, Field, field_validator

from lambdakit.model import Model

from ..common.view import View

ATTACHMENT_ID = re.compile(r"^[0-9a-z]{26}$")


def check_id(v: str) -> str:
    """An id as ``POST /attachments`` makes them (so it can never reach outside the account's prefix)."""
    if not ATTACHMENT_ID.match(v):
        raise ValueError("attachment_id must be an id returned by POST /attachments")
    return v


def _filename(v: str) -> str:
    if any(c in v for c in "\r\n\"/\\") or any(ord(c) < 32 for c in v):
        raise ValueError("filename must not contain quotes, slashes, line breaks or control characters")
    return v


def _mime(v: str) -> str:
    main, _, sub = v.partition("/")
    if not main or not sub or any(c in v for c in "\r\n;") or any(ord(c) < 33 or ord(c) > 126 for c in v):
        raise ValueError("type must be a MIME type such as application/pdf")
    return v


class AttachmentCreate(Model):
    """A file to upload before sending: its name and MIME type (the upload must carry that type)."""
    model_config = ConfigDict(extra="forbid")
    filename: str = Field(min_length=1, max_length=255)
    type: str = Field(default="application/octet-stream", max_length=255)

    @field_validator("filename")
    @classmethod
    def _name(cls, v: str) -> str:
        return _filename(v)

    @field_validator("type")
    @classmethod
    def _type(cls, v: str) -> str:
        return _mime(v)


class UploadForm(View):
    method: str = "POST"
    url: str
    fields: dict[str, str]
    max_bytes: int
    expires_in: int


class AttachmentCreated(View):
    attachment_id: str
    filename: str
    type: str
    max_bytes: int = Field(description="Largest file the upload accepts (content-length-range)")
    expires_at: str = Field(description="The upload form expires then; the stored file is kept at least 24 h")
    upload: UploadForm


class AttachmentRef(Model):
    """An uploaded attachment, by id (``filename``/``type`` default to the upload's)."""
    model_config = ConfigDict(extra="ignore")
    attachment_id: str
    filename: Optional[str] = Field(default=None, min_length=1, max_length=255)
    type: Optional[str] = Field(default=None, max_length=255)

    @field_validator("attachment_id")
    @classmethod
    def _id(cls, v: str) -> str:
        return check_id(v)

    @field_validator("filename")
    @classmethod
    def _name(cls, v: str | None) -> str | None:
        return v if v is None else _filename(v)

    @field_validator("type")
    @classmethod
    def _type(cls, v: str | None) -> str | None:
        return v if v is None else _mime(v)
