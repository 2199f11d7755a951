"""Webhook rules: validation (https, SSRF), CRUD, signing, delivery attempts with backoff,
the delivery log, manual retry and the synchronous test delivery (keys and signatures: ``signing``).

Secrets are shown once: in full by the create and rotate-secret responses, masked
(``whsec_…last4``) everywhere else. A rotation keeps the previous secret for a grace period
(default 24 h) during which every delivery is signed with both (Stripe's "roll secret"), so the
receiver can switch over without dropping events."""
from __future__ import annotations

import datetime as dt
import logging
from typing import TYPE_CHECKING

from lambdakit import clock, ids
from lambdakit.errors import Conflict, NotFound, ValidationFailed
from lambdakit.observability import count as metric
from lambdakit.pagination import page_meta, page_request
from lambdakit.ssrf import UnsafeUrl, check_url

from ..settings import settings
from . import client
from . import repository as repo
from .dispatch import TEST_EVENT, body_of, new_delivery
from .signing import generate_secret, sign_headers
from .views import Delivery, TestResult, Webhook, WebhookWithSecret

if TYPE_CHECKING:
    from .models import RotateSecret, WebhookCreate, WebhookUpdate

# Cold start: the read routes and the delivery worker load the views only; the write routes
# parse their bodies with ``models`` (imported by the handler's write routes).

FINAL = ("delivered", "failed", "dead_lettered", "cancelled")
logger = logging.getLogger("campaigns.webhooks")


def validate_url(url: str) -> None:
    s = settings()
    try:
        if s.is_local:
            # Local development: http and private/loopback receivers (127.0.0.1) are allowed.
            check_url(url, allow_private=True, require_https=False, resolve=False)
        else:
            check_url(url, allow_private=False, require_https=True)
    except UnsafeUrl as exc:
        raise ValidationFailed("Invalid webhook URL", fields={"url": str(exc)}) from None


#: A secret shorter than this is masked whole: its last 4 characters would be much of it.
MASK_TAIL_FROM = 16


def mask(secret: str) -> str:
    """``whsec_…last4``: enough to tell secrets apart, useless for signing; a short secret of your
    own shows none of its characters (``…``)."""
    head = "whsec_" if secret.startswith("whsec_") else ""
    return f"{head}…{secret[-4:]}" if len(secret) >= MASK_TAIL_FROM else f"{head}…"


def _grace(w: dict) -> str | None:
    exp = w.get("previous_secret_expires_at")
    return exp if exp and w.get("secret_previous") and exp > clock.now_iso() else None


def _view(w: dict, *, reveal: bool = False) -> dict:
    out = {**w, "secret": w["secret"] if reveal else mask(w["secret"]), "previous_secret_expires_at": _grace(w)}
    return (WebhookWithSecret if reveal else Webhook).model_validate(out).model_dump()


def create(account_id: str, body: WebhookCreate) -> dict:
    validate_url(body.url)
    if len(repo.list_webhooks(account_id)) >= settings().max_webhooks:
        raise Conflict(f"An account can have at most {settings().max_webhooks} webhooks", code="LIMIT_EXCEEDED")
    now = clock.now_iso()
    w = {"id": ids.sortable_id().lower(), "account_id": account_id, "name": body.name, "url": body.url,
         "events": body.events, "secret": body.secret or generate_secret(), "enabled": body.enabled,
         "created_at": now, "updated_at": now}
    repo.put_webhook(account_id, w)
    return _view(w, reveal=True)


def get(account_id: str, webhook_id: str) -> dict:
    w = repo.get_webhook(account_id, webhook_id)
    if not w:
        raise NotFound("Webhook not found")
    return w


def view(account_id: str, webhook_id: str) -> dict:
    return _view(get(account_id, webhook_id))


def list_page(account_id: str, page: str | None, limit: str | None) -> dict:
    """``data.webhooks`` (oldest first) and ``data.pagination``, as every list of the spec. An account
    has at most ``max_webhooks`` (25): one query reads them all and the page is cut in memory."""
    pr = page_request(page, limit)
    hooks = sorted(repo.list_webhooks(account_id), key=lambda w: w["created_at"])
    return {"webhooks": [_view(w) for w in hooks[pr.offset:pr.offset + pr.limit]],
            "pagination": page_meta(pr, len(hooks))}


def update(account_id: str, webhook_id: str, body: WebhookUpdate) -> dict:
    changes = body.model_dump(exclude_unset=True, exclude_none=True)
    if "url" in changes:
        validate_url(changes["url"])
    if changes.get("enabled") is True:
        changes["disabled_reason"] = None
    changes["updated_at"] = clock.now_iso()
    expected = None
    if "secret" in changes:  # a secret set through PUT is a rotation too (same grace, same masking)
        old = get(account_id, webhook_id)
        expected = old["secret"]
        from .models import RotateSecret

        changes.update(_rotation(old["secret"], changes["secret"], RotateSecret().grace_period_seconds))
    return _view(repo.update_webhook(account_id, webhook_id, changes, expected_secret=expected))


def _rotation(old: str, new: str, grace_seconds: int) -> dict:
    if grace_seconds <= 0 or old == new:
        return {"secret": new, "secret_previous": None, "previous_secret_expires_at": None}
    until = clock.iso(clock.now() + dt.timedelta(seconds=grace_seconds))
    return {"secret": new, "secret_previous": old, "previous_secret_expires_at": until}


def rotate_secret(account_id: str, webhook_id: str, body: RotateSecret) -> dict:
    """New signing secret, shown in full this once; the old one signs too until the grace ends."""
    old = get(account_id, webhook_id)
    new = body.secret or generate_secret()
    changes = {**_rotation(old["secret"], new, body.grace_period_seconds), "updated_at": clock.now_iso()}
    return _view(repo.update_webhook(account_id, webhook_id, changes, expected_secret=old["secret"]), reveal=True)


def delete(account_id: str, webhook_id: str) -> None:
    repo.delete_webhook(account_id, webhook_id)


# ---------------------------------------------------------------- delivery
def _attempt(webhook: dict, delivery: dict) -> client.PostResult:
    body = delivery["body"].encode("utf-8")
    previous = webhook.get("secret_previous") if _grace(webhook) else None
    headers = sign_headers(webhook["secret"], delivery["id"], body, int(clock.now_ts()), previous)
    headers["x-campaign-event"] = delivery["event"]
    s = settings()
    return client.post(webhook["url"], body, headers, timeout=s.webhook_timeout_seconds, allow_private=s.is_local)


class RetryLater(Exception):
    def __init__(self, delay: int) -> None:
        super().__init__(f"retry in {delay}s")
        self.delay = delay


def deliver(message: dict) -> str:
    """One attempt of a queued delivery. Returns the new status; raises ``RetryLater`` when the
    message must come back after a backoff (the worker sets the visibility)."""
    account_id, webhook_id, delivery_id = message["account_id"], message["webhook_id"], message["delivery_id"]
    d, w = repo.get_delivery_and_webhook(account_id, webhook_id, delivery_id)
    if not d or d.get("status") in FINAL:
        return d.get("status", "missing") if d else "missing"
    if int(message.get("seq") or 0) != int(d.get("relay_seq") or 0):
        return "superseded"  # the relay queued it again under a newer generation: that message runs it
    now = clock.now_iso()
    if not w or not w.get("enabled", True):
        repo.update_delivery(webhook_id, delivery_id, set={"status": "cancelled", "updated_at": now,
                                                           "last_error": "webhook deleted or disabled"},
                             picked_up=True)
        return "cancelled"
    res = _attempt(w, d)
    series = int(d.get("series_attempts") or 0) + 1
    base = {"last_status_code": res.status, "last_latency_ms": res.latency_ms, "last_error": res.error,
            "last_attempt_at": now, "updated_at": now, "series_attempts": series}
    if res.status is not None and 200 <= res.status < 300:
        repo.update_delivery(webhook_id, delivery_id, set={**base, "status": "delivered", "delivered_at": now,
                                                           "next_attempt_at": None}, add={"attempts": 1}, picked_up=True)
        metric("WebhookDeliveriesSucceeded")
        return "delivered"
    if res.status == 410:
        repo.update_delivery(webhook_id, delivery_id, set={**base, "status": "failed", "next_attempt_at": None,
                                                           "last_error": "410 Gone: webhook disabled"},
                             add={"attempts": 1}, picked_up=True)
        repo.update_webhook(account_id, webhook_id, {"enabled": False, "updated_at": now,
                                                     "disabled_reason": "Receiver answered 410 Gone"})
        metric("WebhookDeliveriesFailed")
        return "failed"
    s = settings()
    if series >= s.webhook_attempts:
        repo.update_delivery(webhook_id, delivery_id, set={**base, "status": "dead_lettered", "next_attempt_at": None},
                             add={"attempts": 1}, picked_up=True)
        metric("WebhookDeliveriesDeadLettered")
        try:  # the log says dead_lettered (POST .../retry redelivers); the DLQ copy is for operators
            repo.send_to_dlq({**message, "reason": res.error or f"HTTP {res.status}", "attempts": series})
        except Exception:  # noqa: BLE001 - failing here would redeliver the message: one more POST
            logger.exception("dead-lettered delivery not copied to the DLQ", extra={"delivery_id": delivery_id})
        return "dead_lettered"
    schedule = s.webhook_backoff
    delay = schedule[min(series - 1, len(schedule) - 1)] if schedule else 30
    nxt = clock.iso(clock.now() + dt.timedelta(seconds=delay))
    repo.update_delivery(webhook_id, delivery_id, set={**base, "status": "retrying", "next_attempt_at": nxt},
                         add={"attempts": 1}, picked_up=True)
    metric("WebhookDeliveriesFailed")
    raise RetryLater(delay)


# ---------------------------------------------------------------- log, retry, test
def deliveries(account_id: str, webhook_id: str, limit: int, cursor: str | None) -> dict:
    get(account_id, webhook_id)
    items, nxt = repo.list_deliveries(webhook_id, limit, cursor)
    return {"deliveries": [Delivery.model_validate(i).model_dump() for i in items],
            "pagination": {"limit": limit, "next_cursor": nxt}}


def retry(account_id: str, webhook_id: str, delivery_id: str) -> dict:
    get(account_id, webhook_id)
    d = repo.get_delivery(webhook_id, delivery_id)
    if not d or d.get("account_id") != account_id:
        raise NotFound("Delivery not found")
    if d["status"] in ("pending", "retrying"):
        raise Conflict("Delivery is already queued", code="INVALID_STATE",
                       details={"expected_state": "delivered, failed, dead_lettered or cancelled",
                                "actual_state": d["status"]})
    from lambdakit.errors import ConditionFailed

    try:  # back to the queue as a new relay generation (a stale message of an old one is dropped)
        d = repo.requeue_delivery(webhook_id, delivery_id, from_status=d["status"],
                                  set={"status": "pending", "series_attempts": 0, "next_attempt_at": None,
                                       "updated_at": clock.now_iso()})
    except ConditionFailed:
        raise Conflict("Delivery changed concurrently; try again", code="INVALID_STATE") from None
    try:
        repo.enqueue([{"account_id": account_id, "webhook_id": webhook_id, "delivery_id": delivery_id,
                       "seq": int(d.get("relay_seq") or 0)}])
    except repo.QueueFailed:
        # Recorded for the queue: the relay sweep queues it within minutes. The answer says so.
        return {**Delivery.model_validate(d).model_dump(), "queued": False}
    return {**Delivery.model_validate(d).model_dump(), "queued": True}


def send_test(account_id: str, webhook_id: str) -> dict:
    w = get(account_id, webhook_id)
    validate_url(w["url"])
    ts = clock.now_iso()
    body = body_of(TEST_EVENT, {"webhook_id": w["id"], "webhook_name": w["name"],
                                "message": "This is a test delivery."}, ts)
    d = new_delivery(account_id, w, TEST_EVENT, body)
    repo.create_delivery(d)
    res = _attempt(w, d)
    ok = res.status is not None and 200 <= res.status < 300
    now = clock.now_iso()
    repo.update_delivery(w["id"], d["id"], set={"status": "delivered" if ok else "failed", "attempts": 1,
                                                "series_attempts": 1, "last_status_code": res.status,
                                                "last_latency_ms": res.latency_ms, "last_error": res.error,
                                                "last_attempt_at": now, "updated_at": now,
                                                **({"delivered_at": now} if ok else {})})
    return TestResult(delivery_id=d["id"], success=ok, status_code=res.status, latency_ms=res.latency_ms,
                      error=res.error).model_dump()
