"""Internship service settings, parsed once from ``INTERNSHIPS_*`` environment variables.

Secrets come from Secrets Manager (``*_ARN``); the plain variables override them
for local development only.
"""
from __future__ import annotations

import re
from typing import Any

from pydantic import field_validator, model_validator

from lambdakit.settings import (
    NO_REPLY_SENDER,
    PRESIGNED_URL_TTL_SECONDS,
    EmailProvider,
    FilesBucket,
    PresignTtlSeconds,
    QueueUrl,
    RateLimit,
    SecretArn,
    ServiceSettings,
    SettingsConfigDict,
    get_settings,
)


class InternshipsSettings(ServiceSettings, FilesBucket):
    model_config = SettingsConfigDict(env_prefix="INTERNSHIPS_")

    table_name: str = "internships-InternshipsTable"
    email_queue_url: QueueUrl = ""
    #: The tasks queue (issue 33 item 6): work a route could not finish within its time budget.
    tasks_queue_url: QueueUrl = ""
    #: A route stops its inline work when the invocation has less than this left (the HTTP API
    #: answers 503 at 30 s; one item, e.g. an 8 s feed fetch, plus the task record must fit).
    task_http_margin_ms: int = 12_000
    #: The worker (CronFunction, 300 s) hands the rest to a new message below this much time left.
    task_worker_margin_ms: int = 30_000
    jwt_secret_arn: SecretArn = ""
    jwt_secret: str = ""
    cron_secret_arn: SecretArn = ""
    cron_secret: str = ""
    payment_secret_arn: SecretArn = ""
    #: Open Badges credentials (issue 34): the Ed25519 signing key's secret (credentials/repository.py);
    #: ``credential_secret`` is its value directly (tests only)
    credential_secret_arn: SecretArn = ""
    credential_secret: str = ""
    payment_provider: str = "sandbox"
    frontend_url: str = ""
    #: SSM parameter holding the API's public base URL when ``public_base_url`` is empty (issue 33:
    #: ``make base-url`` writes it; ``internships.links``).
    public_base_url_parameter: str = ""
    google_client_id: str = ""
    sender_email: str = NO_REPLY_SENDER

    # --- ENGAGE slice (announcements, notifications, jobs, forms, mail, cron) ---
    #: ``ses`` (SES v2) or ``sandbox`` (records each message in DynamoDB); empty = sandbox when Stage is local.
    email_provider: EmailProvider = ""
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
    #: One source's fetch in total, redirects included (it must fit the routes' task margin, 12 s).
    jobs_fetch_timeout_seconds: float = 8.0
    jobs_max_response_bytes: int = 2_000_000
    jobs_max_per_source: int = 200
    #: Days a job listing stays before the TTL removes it.
    jobs_retention_days: int = 60
    leads_rate_limit: RateLimit = "5/minute"
    forms_rate_limit: RateLimit = "10/minute"
    visit_rate_limit: RateLimit = "120/minute"
    #: new unique visitors one address may add per UTC day (POST /api/analytics/visit, issue 32 item 7)
    visit_new_per_ip_per_day: int = 20
    #: read marks of enrollment/milestone notifications one user may hold (POST /api/notifications)
    notification_marks_per_user: int = 500
    inactive_after_days: int = 14
    deadline_reminder_days: int = 3

    # --- intern-admin (ADMIN slice) ---
    #: exports up to this many rows are returned in the response body; larger ones go to S3
    export_direct_max_rows: int = 2000
    #: with ``delivery: "direct"`` the body is still capped at this many rows (then S3)
    export_direct_hard_max_rows: int = 10000
    export_url_ttl_seconds: PresignTtlSeconds = PRESIGNED_URL_TTL_SECONDS
    analytics_cache_seconds: int = 60
    #: presigned upload URLs of POST /api/admin/resources/sign
    resource_upload_url_ttl_seconds: PresignTtlSeconds = PRESIGNED_URL_TTL_SECONDS
    resource_max_upload_bytes: int = 4 * 1024 * 1024


    # ---- JOURNEY slice (accounts, payments, documents) --------------------------------
    #: scrypt cost (OWASP: 2**17); tests lower it.
    scrypt_n: int = 2**17
    access_token_minutes: int = 15
    refresh_token_days: int = 30
    register_rate_per_minute: int = 3
    login_rate_per_minute: int = 5
    #: Credential throttling (docs/internships-journey.md "Credential throttling"). Per (account, IP):
    #: after ``login_lockout_threshold`` consecutive failures that pair waits 2^k * base seconds
    #: (capped at max) before its next try; other addresses are not affected.
    login_lockout_threshold: int = 5
    login_lockout_base_seconds: int = 30
    login_lockout_max_seconds: int = 900
    #: Per account, from every address together: past ``login_account_ceiling`` failures in the
    #: last ``login_account_window_seconds`` the account is slowed (one try per
    #: ``login_account_slow_seconds``), never locked.
    login_account_ceiling: int = 20
    login_account_window_seconds: int = 3600
    login_account_slow_seconds: int = 5
    #: extra origins trusted for cookie-authenticated unsafe requests (comma separated).
    trusted_origins: str = ""
    #: sibling origins (comma separated) whose ``Sec-Fetch-Site: same-site`` requests pass the CSRF
    #: check; empty (the default): ``same-site`` is not proof, only ``same-origin`` is.
    csrf_same_site_origins: str = ""
    #: Google sign-in (OpenID Connect code flow + PKCE). Endpoints come from the issuer's discovery
    #: document (``<issuer>/.well-known/openid-configuration``); locally the issuer is the
    #: stand-in provider that ``make dev`` starts on 127.0.0.1 (local_runtime/oidc.py).
    google_issuer: str = "https://accounts.google.com"
    #: further ``iss`` values accepted in ID tokens (Google also signs ``accounts.google.com``).
    google_alt_issuers: str = "accounts.google.com"
    google_client_secret: str = ""
    google_client_secret_arn: SecretArn = ""
    google_http_timeout_seconds: float = 10.0
    #: HMAC key of the OAuth state cookie, its own secret (plain value: local development only).
    oauth_state_secret: str = ""
    oauth_state_secret_arn: SecretArn = ""
    #: coupon tries (docs: "Coupon enumeration"): per signed-in user and per IP, one budget for
    #: POST /api/coupons/validate and the couponCode of POST /api/enrollments/create.
    coupon_validate_user_rate: RateLimit = "10/minute"
    coupon_validate_ip_rate: RateLimit = "30/minute"
    #: hosts /api/proxy-image may fetch from (comma separated, https only).
    avatar_proxy_hosts: str = ("lh3.googleusercontent.com,lh4.googleusercontent.com,lh5.googleusercontent.com,"
                               "lh6.googleusercontent.com,avatars.githubusercontent.com")
    #: largest avatar upload (and proxied avatar), 4 MiB. It must fit in one synchronous Lambda invocation
    #: (6 MB = 6,291,456 bytes, request and response): the event carries the multipart body base64-encoded
    #: (4/3: 4 MiB + envelope -> ~5.59 MB) plus headers (HTTP API: at most 10,240 bytes) and the request
    #: context, about 5.60 MB in all, leaving ~688 KB of headroom. The most that fits is ~4.49 MiB;
    #: 5 MiB never reached the function (API Gateway answered its own 413).
    #: docs/internships-journey.md "Avatar size".
    avatar_max_bytes: int = 4 * 1024 * 1024
    #: local overrides of the PaymentSecret JSON (never used when empty).
    payment_key_id: str = ""
    payment_key_secret: str = ""
    payment_webhook_secret: str = ""
    razorpay_api_url: str = "https://api.razorpay.com/v1"
    #: GST on invoices: prices are tax inclusive; CGST+SGST inside seller_state, else IGST.
    gst_rate_percent: float = 18.0
    #: The supplier every invoice names (CGST Rules, rule 46: legal name, address, GSTIN): template
    #: parameters SellerName, SellerAddress, SellerGstin, SellerState. Deployed with one of the first
    #: three empty, invoices answer 503 SUPPLIER_NOT_CONFIGURED rather than an invoice without them;
    #: the local stage fills empty ones with ``DEV_SELLER``. seller_name is also the certificates' issuer.
    seller_name: str = ""
    seller_address: str = ""
    seller_gstin: str = ""
    seller_state: str = "Karnataka"
    #: 0 = certificates never expire.
    certificate_validity_days: int = 0
    certificate_verify_rate_per_minute: int = 30
    #: bootstrap super admin created by devseed (local runtime only).
    seed_admin_email: str = "admin@example.com"


    @field_validator("seller_gstin")
    @classmethod
    def _gstin(cls, v: str) -> str:
        v = (v or "").strip().upper()
        if v and not gstin_valid(v):
            raise ValueError("seller_gstin is not a valid GSTIN (15 characters, check character included)")
        return v

    @model_validator(mode="wrap")
    @classmethod
    def _dev_seller(cls, data: Any, handler: Any) -> "InternshipsSettings":
        parsed = handler(data)
        if not parsed.is_local:
            return parsed
        fill = {field: value for field, value in DEV_SELLER.items() if not getattr(parsed, field)}
        return parsed.model_copy(update=fill) if fill else parsed

    @property
    def issuer(self) -> str:
        """Who issues certificates: the supplier's legal name."""
        return self.seller_name or "Internship Programme"


_GSTIN = re.compile(r"^[0-9]{2}[A-Z]{5}[0-9]{4}[A-Z][1-9A-Z]Z[0-9A-Z]$")
_GSTIN_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def gstin_check_char(first14: str) -> str:
    """The 15th character of a GSTIN (the GSTN's base-36 Luhn mod 36 check)."""
    total = 0
    for i, ch in enumerate(first14):
        v = _GSTIN_CHARS.index(ch) * (2 if i % 2 else 1)
        total += v // 36 + v % 36
    return _GSTIN_CHARS[(36 - total % 36) % 36]


def gstin_valid(v: str) -> bool:
    """State code, PAN, entity number, ``Z`` and the check character of a GSTIN."""
    return bool(_GSTIN.match(v)) and gstin_check_char(v[:14]) == v[14]


#: The local stage's supplier (``make dev``, tests): a made-up company with a well-formed GSTIN.
DEV_SELLER = {"seller_name": "Example Internships Private Limited",
              "seller_address": "12 MG Road, Bengaluru, Karnataka 560001, India",
              "seller_gstin": "29AABCE1234F1Z" + gstin_check_char("29AABCE1234F1Z")}


def settings() -> InternshipsSettings:
    return get_settings(InternshipsSettings)
