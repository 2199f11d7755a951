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


def settings() -> InternshipsSettings:
    return get_settings(InternshipsSettings)
