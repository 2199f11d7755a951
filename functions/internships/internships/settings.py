"""Internship service settings, parsed once from ``INTERNSHIPS_*`` environment variables.

Secrets come from Secrets Manager (``*_ARN``); the plain variables override them
for local development only.
"""
from __future__ import annotations

from lambdakit.settings import ServiceSettings, SettingsConfigDict, get_settings


class InternshipsSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="INTERNSHIPS_", extra="ignore", frozen=True)

    table_name: str = "internships-InternshipsTable"
    email_queue_url: str = ""
    files_bucket: str = ""
    jwt_secret_arn: str = ""
    jwt_secret: str = ""
    cron_secret_arn: str = ""
    cron_secret: str = ""
    payment_secret_arn: str = ""
    payment_provider: str = "sandbox"
    frontend_url: str = ""
    google_client_id: str = ""
    sender_email: str = "no-reply@example.com"

    # --- intern-admin (ADMIN slice) ---
    #: exports up to this many rows are returned in the response body; larger ones go to S3
    export_direct_max_rows: int = 2000
    #: with ``delivery: "direct"`` the body is still capped at this many rows (then S3)
    export_direct_hard_max_rows: int = 10000
    export_url_ttl_seconds: int = 900
    analytics_cache_seconds: int = 60
    #: presigned upload URLs of POST /api/admin/resources/sign
    resource_upload_url_ttl_seconds: int = 900
    resource_max_upload_bytes: int = 4 * 1024 * 1024


def settings() -> InternshipsSettings:
    return get_settings(InternshipsSettings)
