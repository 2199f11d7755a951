"""Campaign service settings, parsed once from ``CAMPAIGNS_*`` environment variables."""
from __future__ import annotations

from lambdakit.settings import (
    NO_REPLY_SENDER,
    PRESIGNED_URL_TTL_SECONDS,
    BucketName,
    EmailProvider,
    FilesBucket,
    PresignTtlSeconds,
    QueueUrl,
    SecretArn,
    ServiceSettings,
    SettingsConfigDict,
    effective_email_provider,
    get_settings,
)


class CampaignsSettings(ServiceSettings, FilesBucket):
    model_config = SettingsConfigDict(env_prefix="CAMPAIGNS_")

    table_name: str = "campaigns-CampaignsTable"
    send_queue_url: QueueUrl = ""
    webhook_queue_url: QueueUrl = ""
    #: Secrets Manager ARN of the link-signing key; ``signing_secret`` overrides it locally.
    signing_secret_arn: SecretArn = ""
    signing_secret: str = ""
    #: SSM parameter holding the public base URL when ``public_base_url`` is empty (issue 33: written
    #: by ``make base-url`` from the stack's API URL; ``lambdakit.baseurl``).
    public_base_url_parameter: str = ""

    # ---- camp-sending: sending pipeline, tracking, webhooks, SES feedback
    #: Default provider: ``ses`` or ``sandbox``; empty means sandbox under Stage=local, SES elsewhere.
    default_provider: EmailProvider = ""
    #: SES v2 configuration set that carries delivery/bounce/complaint events to EventBridge.
    ses_configuration_set: str = ""
    #: Used when SES GetAccount is unavailable (the emulator) or fails; SES's sandbox default is 1/s.
    ses_fallback_max_send_rate: float = 50.0
    #: Overrides SES GetAccount's MaxSendRate when > 0 (benchmarks against the emulator, whose quota is 1/s).
    ses_max_send_rate: float = 0.0
    #: Per-account sending limit (messages per second, across all workers).
    account_send_rate_per_second: int = 200
    #: Default From address when neither the request nor the campaign gives one.
    default_from_email: str = NO_REPLY_SENDER
    default_from_name: str = ""
    #: Recipient records, outbox entries and webhook deliveries expire after this many days.
    send_record_ttl_days: int = 400
    outbox_ttl_days: int = 30
    #: Webhook retry schedule in seconds (comma-separated); empty means the stage default
    #: (30s, 2m, 10m, 1h, 6h, 12h, 12h: ~32 h in all, deployed; 1s steps locally).
    webhook_backoff_schedule: str = ""
    #: Attempts before a delivery goes to the DLQ; 0 means the stage default (8 deployed, 4 locally).
    webhook_max_attempts: int = 0
    webhook_timeout_seconds: float = 10.0
    webhook_dlq_url: QueueUrl = ""
    #: Maximum webhooks per account.
    max_webhooks: int = 25
    #: Maximum sender identities (addresses + domains) per account: identities live in the
    #: platform's one SES account, whose identity quota all tenants share.
    max_senders: int = 20
    #: Opens within this many seconds of the send are counted as machine opens (security scanners).
    machine_open_window_seconds: int = 2
    #: Tracking records country/city from ``CloudFront-Viewer-Country``/``-City`` only when true: set it
    #: (template parameter ``TrustCloudFrontGeo``) only when a CloudFront distribution in front sets them.
    trust_cloudfront_geo: bool = False

    @property
    def provider_default(self) -> str:
        return effective_email_provider(self.default_provider, local=self.is_local)

    @property
    def webhook_backoff(self) -> list[int]:
        raw = self.webhook_backoff_schedule or ("1,1,1,1,1,1,1" if self.is_local else "30,120,600,3600,21600,43200,43200")
        return [int(x) for x in raw.split(",") if x.strip()]

    @property
    def webhook_attempts(self) -> int:
        return self.webhook_max_attempts or (4 if self.is_local else 8)


    # --- camp-audience slice: keys, contacts, imports, exports ---
    #: Requests per minute per key by plan; enterprise keys use their ``restrictions.rate_limit``
    #: and fall back to ``enterprise_default_per_minute``.
    plan_standard_per_minute: int = 100
    plan_pro_per_minute: int = 1000
    enterprise_default_per_minute: int = 10000
    #: Multipart bodies of ``POST /contacts/import`` up to this many bytes run in the request.
    #: The real ceiling is Lambda's synchronous event (6,291,456 bytes): API Gateway base64-encodes
    #: a multipart body (×4/3), so 4,500,000 bytes arrive as a 6,000,000-byte event plus headers.
    #: Bigger files use the asynchronous job (``POST /contacts/imports``, presigned S3 upload).
    import_max_bytes: int = 4_500_000
    #: ...and up to this many rows; bigger files must use the asynchronous job.
    import_max_sync_rows: int = 20_000
    #: Asynchronous import files up to this size (presigned upload).
    import_job_max_bytes: int = 200 * 1024 * 1024
    #: Exports bigger than this go to S3 with a presigned URL (Lambda's 6 MB response limit).
    export_inline_max_bytes: int = 5_000_000
    presign_ttl_seconds: PresignTtlSeconds = PRESIGNED_URL_TTL_SECONDS
    #: Deepest offset reachable with page numbers; deeper pages use ``cursor``.
    max_page_offset: int = 10_000
    #: Queue of the import worker (import continuations, list detach jobs).
    import_queue_url: QueueUrl = ""
    #: Bucket receiving asynchronous import uploads (its ObjectCreated events feed the import queue).
    import_bucket: BucketName = ""
    #: Rows one worker invocation processes before handing over to a continuation message.
    import_rows_per_invocation: int = 50_000

    # --- r3-export slice ---
    #: Exports whose row count (from the counters) is above this run as an asynchronous job
    #: (202 + presigned URL); at most this many contacts are read inside the request.
    export_inline_max_rows: int = 5_000


def settings() -> CampaignsSettings:
    return get_settings(CampaignsSettings)
