"""Notification feed bodies (OpenAPI)."""
from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from lambdakit.model import Model


class Notification(Model):
    model_config = ConfigDict(extra="allow", defer_build=True)

    id: str
    type: Literal["announcement", "enrollment", "milestone"]
    title: str
    message: str
    createdAt: str
    read: bool
    announcementId: str | None = None
    ref: dict


class NotificationFeed(Model):
    model_config = ConfigDict(extra="allow", defer_build=True)

    success: bool
    notifications: list[Notification]
    unreadCount: int
