"""The public views of webhooks and their deliveries, apart from the request bodies (``models``,
which re-exports them): the read routes and the delivery worker validate with these without
defining the bodies (issue 21)."""
from __future__ import annotations

from typing import Optional

from pydantic import Field

from ..common.view import View


class Webhook(View):
    id: str
    name: str
    url: str
    events: list[str]
    secret: str = Field(description="Masked (``whsec_…last4``): the full secret is shown only by the create and "
                                    "rotate-secret responses")
    previous_secret_expires_at: Optional[str] = Field(
        default=None, description="While set, deliveries are also signed with the previous secret (rotation grace)")
    enabled: bool
    disabled_reason: Optional[str] = None
    created_at: str
    updated_at: str


class WebhookWithSecret(Webhook):
    """Create and rotate-secret responses: ``secret`` in full, shown this once."""
    secret: str = Field(description="The signing secret in full; it is not shown again")


class Delivery(View):
    id: str
    webhook_id: str
    event: str
    status: str
    attempts: int
    last_status_code: Optional[int] = None
    last_latency_ms: Optional[int] = None
    last_error: Optional[str] = None
    created_at: str
    last_attempt_at: Optional[str] = None
    next_attempt_at: Optional[str] = None
    delivered_at: Optional[str] = None


class TestResult(View):
    delivery_id: str
    success: bool
    status_code: Optional[int]
    latency_ms: int
    error: Optional[str] = None
