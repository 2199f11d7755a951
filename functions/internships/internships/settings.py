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

    # --- ENGAGE slice (announcements, notifications, jobs, forms, mail, cron) ---
    #: ``ses`` (SES v2) or ``sandbox`` (records each message in DynamoDB); empty = sandbox when Stage is local.
    email_provider: str = ""
    email_max_attempts: int = 5
    email_retry_base_seconds: int = 60
    email_retry_max_seconds: int = 3600
    #: Messages processed by one ``process-emails`` run (the queue worker handles the rest).
    email_sweep_limit: int = 200
    #: Fallback counselor address when the site settings carry no ``siteEmail``.
    counselor_email: str = ""
    #: Job-search API URL with ``{query}`` and ``{location}`` placeholders (empty: disabled).
    jobs_search_url: str = ""
    #: Comma-separated RSS/Atom feed URLs.
    jobs_rss_feeds: str = ""
    #: Comma-separated queries the weekly schedule and ``fetch-all`` refresh from the search API.
    jobs_default_queries: str = "software intern,data science intern,web development intern"
    jobs_fetch_timeout_seconds: float = 8.0
    jobs_max_response_bytes: int = 2_000_000
    jobs_max_per_source: int = 200
    #: Days a job listing stays before the TTL removes it.
    jobs_retention_days: int = 60
    leads_rate_limit: str = "5/minute"
    forms_rate_limit: str = "10/minute"
    visit_rate_limit: str = "120/minute"
    inactive_after_days: int = 14
    deadline_reminder_days: int = 3

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
