"""Announcement shapes. The admin routes use the spec's snake_case fields."""
from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import ConfigDict, Field, StrictBool, StrictInt, field_validator

from lambdakit.model import Model

AnnouncementType = Literal["info", "warning", "success", "error"]
Category = Literal["general", "offer", "jobs", "maintenance", "notification"]
Audience = Literal["all", "registered", "enrolled", "active", "inactive", "unenrolled", "students", "specific_domains"]
Status = Literal["draft", "scheduled", "active", "inactive"]


class DeliveryChannels(Model):
    model_config = ConfigDict(extra="forbid")
    dashboard: StrictBool = True
    email: StrictBool = False
    banner: StrictBool = False
    popup: StrictBool = False


def naive_utc(value) -> str | None:
    """Timestamps without zone (``YYYY-MM-DDTHH:MM:SS``, UTC). A zoned value is converted to UTC."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > 40:
        raise ValueError("must be an ISO 8601 timestamp")
    try:
        parsed = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError("must be an ISO 8601 timestamp") from None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return parsed.replace(microsecond=0).isoformat()


class _Fields(Model):
    model_config = ConfigDict(extra="forbid")
    title: str | None = Field(default=None, min_length=1, max_length=200)
    content: str | None = Field(default=None, min_length=1, max_length=10000)
    type: AnnouncementType | None = None
    category: Category | None = None
    target_audience: Audience | None = None
    target_domains: list[str] | None = Field(default=None, max_length=100)
    priority: StrictInt | None = Field(default=None, ge=-1000, le=1000)
    status: Status | None = None
    is_active: StrictBool | None = None
    scheduled_for: str | None = None
    expires_at: str | None = None
    delivery_channels: DeliveryChannels | None = None
    send_email: StrictBool | None = None

    @field_validator("title", "content", mode="before")
    @classmethod
    def _strip(cls, v):
        return v.strip() if isinstance(v, str) else v

    @field_validator("scheduled_for", "expires_at", mode="before")
    @classmethod
    def _ts(cls, v):
        return naive_utc(v)

    @field_validator("target_domains")
    @classmethod
    def _domains(cls, v):
        if v is None:
            return v
        out = []
        for d in v:
            if not d or len(d) > 64:
                raise ValueError("target_domains must be domain ids")
            if d not in out:
                out.append(d)
        return out


class AnnouncementCreate(_Fields):
    title: str = Field(min_length=1, max_length=200)
    content: str = Field(min_length=1, max_length=10000)


class AnnouncementUpdate(_Fields):
    pass


class Announcement(Model):
    """Admin view (snake_case, as the spec's admin shape)."""
    id: str
    title: str
    content: str
    type: str
    category: str
    target_audience: str
    target_domains: list[str]
    priority: int
    status: str
    is_active: bool
    scheduled_for: str | None
    expires_at: str | None
    delivery_channels: DeliveryChannels
    send_email: bool
    email_queued_at: str | None = None
    email_recipients: int | None = None
    created_by: str | None = None
    created_at: str
    updated_at: str


class StudentAnnouncement(Model):
    id: str
    title: str
    content: str
    type: str
    category: str
    priority: int
    createdAt: str
    scheduledFor: str | None
    expiresAt: str | None
    deliveryChannels: DeliveryChannels
    isRead: bool


class MarkRead(Model):
    model_config = ConfigDict(extra="ignore")
    announcementId: str | None = Field(default=None, max_length=64)
    notificationId: str | None = Field(default=None, max_length=200)


# ---------------------------------------------------------------- student response bodies (OpenAPI)
class AnnouncementFeed(Model):
    success: bool
    announcements: list[StudentAnnouncement]
    unreadCount: int


class UnreadCount(Model):
    success: bool
    count: int


class ReadResult(Model):
    success: bool
    read: bool
    announcementId: str | None = None
    notificationId: str | None = None
