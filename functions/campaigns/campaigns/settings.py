"""Campaign service settings, parsed once from ``CAMPAIGNS_*`` environment variables."""
from __future__ import annotations

from lambdakit.settings import ServiceSettings, SettingsConfigDict, get_settings


class CampaignsSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="CAMPAIGNS_", extra="ignore", frozen=True)

    table_name: str = "campaigns-CampaignsTable"
    send_queue_url: str = ""
    webhook_queue_url: str = ""
    files_bucket: str = ""
    #: Secrets Manager ARN of the link-signing key; ``signing_secret`` overrides it locally.
    signing_secret_arn: str = ""
    signing_secret: str = ""


def settings() -> CampaignsSettings:
    return get_settings(CampaignsSettings)
