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


def settings() -> ExamsSettings:
    return get_settings(ExamsSettings)
