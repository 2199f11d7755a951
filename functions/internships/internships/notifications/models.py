"""Notification feed bodies (OpenAPI)."""
from __future__ import annotations

from typing import Literal

from lambdakit.model import Model


class NotificationRef(Model):
    """What the notification is about: ``announcementId``, ``category`` and ``level`` (announcement);
    ``enrollmentId`` and ``status`` (enrollment); ``milestoneId``, ``enrollmentId`` and ``status`` (milestone)."""

    announcementId: str | None = None
    category: str | None = None
    level: str | None = None
    enrollmentId: str | None = None
    milestoneId: str | None = None
    status: str | None = None


class Notification(Model):
    id: str
    type: Literal["announcement", "enrollment", "milestone"]
    title: str
    message: str
    createdAt: str
    read: bool
    announcementId: str | None = None
    ref: NotificationRef


class NotificationFeed(Model):
    success: bool
    notifications: list[Notification]
    unreadCount: int
