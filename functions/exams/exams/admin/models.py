"""Request and response bodies of the admin routes."""
from __future__ import annotations

from pydantic import ConfigDict, Field

from lambdakit.model import Model


class SettingsUpdate(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    maintenance_mode: bool | None = None
    announcement_banner: str | None = Field(default=None, max_length=1000)
    registration_enabled: bool | None = None


class PlatformSettings(Model):
    maintenance_mode: bool
    announcement_banner: str | None = None
    registration_enabled: bool
    updated_at: str | None = None
    updated_by: str | None = None


class AuditLogRow(Model):
    """An audit row as the super admin's listing shows it (``admin.auditlog.PUBLIC`` reads exactly
    these attributes: never the key attributes or the expiry)."""

    id: str
    user_id: str | None = None
    client_id: str | None = None
    action: str
    entity_type: str | None = None
    entity_id: str | None = None
    metadata: str | None = Field(default=None, description="JSON text (before/after)")
    ip_address: str | None = None
    created_at: str
    event_type: str | None = Field(default=None, description="Authentication entries: `login` or `token_rejected`")
    success: bool | None = Field(default=None, description="Authentication entries")
    timestamp: str | None = Field(default=None, description="Authentication entries: when it happened")


class AuditLogQuery(Model):
    model_config = ConfigDict(extra="ignore")

    user_id: str | None = None
    action: str | None = None
    entity_type: str | None = None
    start_date: str | None = Field(default=None, description="YYYY-MM-DD or ISO timestamp (inclusive)")
    end_date: str | None = Field(default=None, description="YYYY-MM-DD or ISO timestamp (inclusive)")
    page: int | None = Field(default=None, ge=1)
    limit: int | None = Field(default=None, ge=1, le=200, description="default 50")
