"""Notification feed bodies (OpenAPI)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class Notification(BaseModel):
    model_config = ConfigDict(extra="allow", defer_build=True)

    id: str
    type: Literal["announcement", "enrollment", "milestone"]
    title: str
    message: str
    createdAt: str
    read: bool
    announcementId: str | None = None
    ref: dict


class NotificationFeed(BaseModel):
    model_config = ConfigDict(extra="allow", defer_build=True)

    success: bool
    notifications: list[Notification]
    unreadCount: int
