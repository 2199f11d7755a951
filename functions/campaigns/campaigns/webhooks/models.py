"""Request and response bodies of /webhooks."""
from __future__ import annotations

from typing import Optional

from pydantic import ConfigDict, Field, field_validator

from lambdakit.model import Model

from ..common.pagedocs import CursorPage
from ..common.view import View
from .dispatch import EVENT_KINDS
from .views import Delivery
from .views import TestResult as TestResult  # re-exported: the routes' documentation names these here
from .views import Webhook as Webhook
from .views import WebhookWithSecret as WebhookWithSecret


def _events(v: list[str] | None) -> list[str] | None:
    if v is None:
        return v
    if not v:
        raise ValueError("At least one event is required")
    bad = [e for e in v if e not in EVENT_KINDS]
    if bad:
        raise ValueError(f"Unknown event kind(s): {', '.join(map(str, bad))}; allowed: {', '.join(EVENT_KINDS)}")
    return list(dict.fromkeys(v))


#: A secret of your own: any non-empty string (as GitHub and Mautic take theirs); omitted, one is
#: generated (``whsec_`` + base64 of 32 random bytes, a Standard Webhooks secret), which we recommend.
SECRET_DOC = ("Your own signing secret, 1-256 characters (any non-empty string; use at least 32 random "
              "characters). Only whsec_ + valid base64 is a Standard Webhooks secret (webhook-signature keyed "
              "with the decoded bytes); any other string keys webhook-signature with its UTF-8 bytes (verify "
              "with a raw key). Omitted: a generated whsec_ + base64 of 32 random bytes")


class WebhookCreate(Model):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(min_length=1, max_length=200)
    url: str = Field(min_length=8, max_length=2048)
    events: list[str]
    secret: Optional[str] = Field(default=None, min_length=1, max_length=256, description=SECRET_DOC)
    enabled: bool = True

    _v = field_validator("events")(classmethod(lambda cls, v: _events(v)))


class WebhookUpdate(Model):
    model_config = ConfigDict(extra="ignore")
    name: Optional[str] = Field(default=None, min_length=1, max_length=200)
    url: Optional[str] = Field(default=None, min_length=8, max_length=2048)
    events: Optional[list[str]] = None
    secret: Optional[str] = Field(default=None, min_length=1, max_length=256, description=SECRET_DOC)
    enabled: Optional[bool] = None

    _v = field_validator("events")(classmethod(lambda cls, v: _events(v)))


class RotateSecret(Model):
    """Body of POST /webhooks/{id}/rotate-secret (optional). ``secret``: your own new secret
    (generated when omitted). ``grace_period_seconds``: how long deliveries are also signed with
    the previous secret (default 24 h, at most 72 h; 0 ends the old secret now)."""
    model_config = ConfigDict(extra="forbid")
    secret: Optional[str] = Field(default=None, min_length=1, max_length=256, description=SECRET_DOC)
    grace_period_seconds: int = Field(default=86400, ge=0, le=259200)


class DeliveryQueued(Delivery):
    queued: bool = Field(description="false when SQS refused the message: the delivery is recorded and the "
                                     "dispatcher's relay sweep queues it within about six minutes")


class WebhookDeleted(View):
    id: str
    deleted: bool


class DeliveryPage(View):
    deliveries: list[Delivery]
    pagination: CursorPage
