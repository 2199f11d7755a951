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


    # --- camp-audience slice: keys, contacts, imports, exports ---
    #: Requests per minute per key by plan; enterprise keys use their ``restrictions.rate_limit``
    #: and fall back to ``enterprise_default_per_minute``.
    plan_standard_per_minute: int = 100
    plan_pro_per_minute: int = 1000
    enterprise_default_per_minute: int = 10000
    #: Imports up to this many bytes run in the request (spec's upload size).
    import_max_bytes: int = 10_485_760
    #: ...and up to this many rows; bigger files must use the asynchronous job.
    import_max_sync_rows: int = 20_000
    #: Asynchronous import files up to this size (presigned upload).
    import_job_max_bytes: int = 200 * 1024 * 1024
    #: Exports bigger than this go to S3 with a presigned URL (Lambda's 6 MB response limit).
    export_inline_max_bytes: int = 5_000_000
    presign_ttl_seconds: int = 900
    #: Deepest offset reachable with page numbers; deeper pages use ``cursor``.
    max_page_offset: int = 10_000
    #: Queue of the import worker (import continuations, list detach jobs).
    import_queue_url: str = ""
    #: Bucket receiving asynchronous import uploads (its ObjectCreated events feed the import queue).
    import_bucket: str = ""
    #: Rows one worker invocation processes before handing over to a continuation message.
    import_rows_per_invocation: int = 50_000


def settings() -> CampaignsSettings:
    return get_settings(CampaignsSettings)
