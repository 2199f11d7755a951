"""Examination service settings, parsed once from ``EXAMS_*`` environment variables."""
from __future__ import annotations

from lambdakit.settings import (
    PRESIGNED_URL_TTL_SECONDS,
    BucketName,
    PresignTtlSeconds,
    QueueUrl,
    RateLimit,
    ServiceSettings,
    SettingsConfigDict,
    get_settings,
)


class ExamsSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="EXAMS_")

    table_name: str = "exams-ExamsTable"
    evidence_bucket: BucketName = ""
    analytics_queue_url: QueueUrl = ""
    user_pool_id: str = ""
    jwt_issuer: str = ""
    jwt_audience: str = ""
    jwks_url: str = ""

    # --- exams-core (identity, rate limits, billing) ---
    #: Claim holding the identity's user id (Firebase: ``user_id``); falls back to ``sub``.
    user_id_claim: str = "user_id"
    #: Seconds a fetched JWKS is trusted before it is fetched again.
    jwks_cache_seconds: int = 3600
    #: Minimum seconds between two JWKS fetches triggered by an unknown key id (rotation).
    jwks_refetch_min_seconds: int = 30
    #: Clock skew tolerated on ``exp``/``iat``.
    jwt_leeway_seconds: int = 30
    global_rate_limit: RateLimit = "1000/15minutes"
    strict_rate_limit: RateLimit = "100/minute"
    #: Page size of GET /api/superadmin/audit-logs when ``limit`` is not given.
    audit_page_size: int = 50
    #: Days audit rows are kept (0 = forever).
    audit_retention_days: int = 0

    # ---- exams-delivery slice: questions, tests, attempts, proctoring, reports, analytics
    answer_grace_seconds: int = 60
    default_negative_marks_ratio: float = 0.25
    default_passing_percentage: float = 40.0
    csv_max_bytes: int = 2_000_000
    csv_max_rows: int = 1000
    evidence_max_bytes: int = 2_000_000
    evidence_url_ttl_seconds: PresignTtlSeconds = PRESIGNED_URL_TTL_SECONDS
    proctoring_dedup_seconds: int = 30
    risk_autosubmit_threshold: int = 15
    sweep_shards: int = 8
    #: Guest starts admitted per share code (all guests together), and per share code per client IP
    #: (the IP is hashed before it is stored); over either → 429 RATE_LIMITED. docs/exams-delivery.md.
    guest_start_rate: RateLimit = "600/minute"
    guest_start_ip_rate: RateLimit = "30/hour"


def settings() -> ExamsSettings:
    return get_settings(ExamsSettings)

