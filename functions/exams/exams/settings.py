"""Examination service settings, parsed once from ``EXAMS_*`` environment variables."""
from __future__ import annotations

from lambdakit.settings import ServiceSettings, SettingsConfigDict, get_settings


class ExamsSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="EXAMS_", extra="ignore", frozen=True)

    table_name: str = "exams-ExamsTable"
    evidence_bucket: str = ""
    analytics_queue_url: str = ""
    user_pool_id: str = ""
    jwt_issuer: str = ""
    jwt_audience: str = ""
    jwks_url: str = ""

    # ---- exams-delivery slice: questions, tests, attempts, proctoring, reports, analytics
    answer_grace_seconds: int = 60
    default_negative_marks_ratio: float = 0.25
    default_passing_percentage: float = 40.0
    csv_max_bytes: int = 2_000_000
    csv_max_rows: int = 1000
    evidence_max_bytes: int = 2_000_000
    evidence_url_ttl_seconds: int = 900
    proctoring_dedup_seconds: int = 30
    risk_autosubmit_threshold: int = 15
    sweep_shards: int = 8


def settings() -> ExamsSettings:
    return get_settings(ExamsSettings)
