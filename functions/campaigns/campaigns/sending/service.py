"""/email/send (one message, now), /email/bulk (queued batches), bulk progress and the outbox."""
from __future__ import annotations

import json
import logging
import time
from typing import TYPE_CHECKING

from lambdakit import clock, ids
from lambdakit.batching import runs
from lambdakit.errors import NotFound, ValidationFailed
from lambdakit.security import sha256_hex

from . import idempotency
from . import outbox as outbox_store
from . import repository as repo

if TYPE_CHECKING:
    from ..attachments.service import Resolved
    from .message import Attachment
    from .models import BulkSend, SendEmail
    from .providers import ProviderChoice

# Cold start: the read routes (bulk progress, the outbox) need only the repository; the send
# paths import the pipeline, providers, senders, attachments and the body models when they run.

logger = logging.getLogger("campaigns.sending")

MAX_MESSAGE_BYTES = 200_000
PACED_DELAY_SECONDS = 2


def _content(account_id: str, body) -> tuple[str, str | None, str | None]:
    from . import audience

    if not body.template_id:
        return body.subject or "", body.html, body.text
    tpl = audience.get_template(account_id, body.template_id)
    if not tpl:
        raise ValidationFailed("Unknown template", fields={"template_id": "Template not found"})
    return body.subject or tpl.get("subject") or "", body.html or tpl.get("content"), body.text


def _provider(account_id: str, body) -> ProviderChoice:
    """The provider and sender; the From address must be a verified sender identity of the account
    (422 ``SENDER_NOT_VERIFIED``, whatever the provider: the sandbox refuses what SES would)."""
    from ..senders import service as senders
    from . import providers

    p = providers.choose(body.provider.model_dump() if body.provider else None, from_email=body.from_email,
                         from_name=body.from_name, reply_to=body.reply_to)
    field = "provider.from_email" if body.provider and body.provider.from_email else "from_email"
    senders.require_verified(account_id, p.from_email, field)
    return p


def _attachments(account_id: str, resolved: list[Resolved]) -> list[Attachment]:
    """The message's attachments: inline bytes, uploads read from S3 now (composing)."""
    from ..attachments import service as attachments
    from .message import Attachment

    uploaded = attachments.load(account_id, [r.ref() for r in resolved if r.content is None])
    it = iter(uploaded)
    out = []
    for r in resolved:
        if r.content is not None:
            out.append(Attachment(r.filename, r.content, r.type))
        else:
            name, data, ctype = next(it)
            out.append(Attachment(name, data, ctype))
    return out


def send_one(account_id: str, body: SendEmail) -> dict:
    from ..account.service import postal_address
    from ..attachments import service as attachments
    from ..counters import repository as counters
    from . import batches, pipeline
    from .compose import Footer, Tracking

    subject, html, text = _content(account_id, body)
    resolved = attachments.resolve(account_id, body.attachments, html=html, text=text)
    try:
        files = _attachments(account_id, resolved)
    except attachments.AttachmentGone:
        raise ValidationFailed("Unknown attachment", fields={"attachments": "An uploaded attachment expired"}) from None
    p = _provider(account_id, body)
    ctx = pipeline.SendContext(
        account_id=account_id, send_id=f"m-{ids.sortable_id().lower()}", kind="single", subject=subject, html=html,
        text=text, provider=p, tracking=Tracking(opens=body.tracking.track_opens, clicks=body.tracking.track_clicks),
        unsubscribe=not body.transactional,
        footer=None if body.transactional else Footer(postal_address(account_id)), variables=body.variables, cc=body.cc, bcc=body.bcc, attachments=files,
        metadata=body.metadata)
    rcpt = pipeline.resolve_contacts(account_id, [{"e": body.to}])[0]
    try:
        r = pipeline.deliver(ctx, rcpt)
    except pipeline.Throttled:
        from lambdakit.errors import RateLimited

        raise RateLimited("Sending rate exceeded; retry shortly", headers={"Retry-After": "1"}) from None
    c = pipeline.count([r], p.name)
    try:
        counters.add_day(account_id, clock.today(), {k: c[k] for k in ("sent", "delivered", "bounced", "failed")},
                         provider=p.name)
        batches.apply_effects(ctx, [r])
    except Exception:  # noqa: BLE001 - the message is out: an error answer would make the client send it again
        logger.exception("bookkeeping after a single send failed", extra={"send_id": ctx.send_id})
    status = {"skipped": "suppressed"}.get(r.status, r.status)
    return {"message_id": r.message_id, "status": status, "provider": p.name, "to": body.to}


def _queued(bulk_id: str) -> dict:
    """The answer for a bulk an earlier run under the same Idempotency-Key committed."""
    b = repo.get_bulk(bulk_id) or {}
    left = len(repo.outbox_rows(bulk_id)) if b.get("relay_pending") else 0
    return {"bulk_id": bulk_id, "total": b.get("total", 0), "queued": b.get("queued", 0),
            "batches": b.get("batches_total", 0), "status": "queueing" if left else "queued",
            "batches_queued": int(b.get("batches_total", 0)) - left}


def create_bulk(account_id: str, body: BulkSend, idempotency_key: str | None = None) -> dict:
    from ..attachments import service as attachments
    from . import relay

    key = (sha256_hex(idempotency_key), sha256_hex(body.model_dump_json())) if idempotency_key else None
    if key and (prior := repo.bulk_for_key(account_id, *key)):
        return _queued(prior)  # committed by an earlier run that did not answer (a crash, a timeout)
    subject, html, text = _content(account_id, body)
    files = attachments.resolve(account_id, body.attachments, html=html, text=text)
    p = _provider(account_id, body)
    seen: set[str] = set()
    entries = []
    for r in body.recipients:
        k = r.to.lower()
        if k in seen:
            continue
        seen.add(k)
        entries.append({"e": r.to, **({"vars": r.variables} if r.variables else {})})
    chunks = runs(entries, most=body.batch_size, max_bytes=MAX_MESSAGE_BYTES,
                  size_of=lambda e: len(json.dumps(e, default=str)))
    bid = ids.sortable_id().lower()
    now = clock.now_iso()
    bulk = {"id": bid, "account_id": account_id, "subject": subject, "html": html, "text": text,
            "template_id": body.template_id, "variables": body.variables, "metadata": body.metadata,
            "tracking": body.tracking.model_dump(), "attachments": [f.ref() for f in files], "provider": {"name": p.name, "from_email": p.from_email,
                                                                 "from_name": p.from_name, "reply_to": p.reply_to},
            "status": "queued", "total": len(body.recipients), "queued": len(entries), "batches_total": len(chunks),
            "batches_done": 0, "batch_size": body.batch_size, "send_in_parallel": body.send_in_parallel,
            "st_sent": 0, "st_delivered": 0, "st_bounced": 0, "st_failed": 0, "st_skipped": 0, "created_at": now}
    # The outbox (issue 23 rule 4): the batches are written with the bulk, then relayed to SQS;
    # what SQS does not take now the dispatcher queues later (``relay``). Paced sends: batches
    # become visible one after another (SQS delay, at most 15 minutes).
    rows = [{"batch_no": i + 1, "recipients": ch,
             "delay": 0 if body.send_in_parallel else min(900, i * PACED_DELAY_SECONDS)} for i, ch in enumerate(chunks)]
    prior = repo.put_bulk(bulk, rows, relay.lease_until(), key)
    if prior:
        return _queued(prior)
    taken, left = relay.relay(bid, rows, time.monotonic() + relay.ROUTE_BUDGET_SECONDS)
    relay.settle(bid, left)
    return {"bulk_id": bid, "total": len(body.recipients), "queued": len(entries), "batches": len(chunks),
            "status": "queued" if taken >= len(rows) else "queueing", "batches_queued": taken}


def bulk_status(account_id: str, bulk_id: str) -> dict:
    b = repo.get_bulk(bulk_id)
    if not b or b.get("account_id") != account_id:
        raise NotFound("Bulk send not found")
    done = int(b.get("batches_done", 0))
    status = b.get("status", "queued")
    if status != "completed" and b.get("relay_pending") and repo.outbox_rows(bulk_id, limit=1):
        status = "queueing"  # some batches wait in the outbox for the dispatcher to queue them
    elif status == "queued" and done:
        status = "sending"
    processed = sum(int(b.get(k, 0) or 0) for k in ("st_sent", "st_failed", "st_skipped"))
    return {"bulk_id": bulk_id, "status": status, "total": b["total"], "queued": b["queued"],
            "processed": processed, "sent": int(b.get("st_sent", 0)), "delivered": int(b.get("st_delivered", 0)),
            "bounced": int(b.get("st_bounced", 0)), "failed": int(b.get("st_failed", 0)),
            "suppressed": int(b.get("st_skipped", 0)), "batches_total": b["batches_total"], "batches_done": done,
            "progress": round(done * 100.0 / b["batches_total"], 1) if b["batches_total"] else 100.0,
            "provider": b["provider"]["name"], "created_at": b["created_at"], "completed_at": b.get("completed_at")}


def outbox(account_id: str, *, to: str | None, campaign_id: str | None, bulk_id: str | None, limit: int,
           cursor: str | None) -> dict:
    items, nxt = outbox_store.list_outbox(account_id, to=to, campaign_id=campaign_id, bulk_id=bulk_id, limit=limit,
                                          cursor=cursor)
    keys = ("id", "to", "cc", "bcc", "from", "reply_to", "subject", "html", "text", "headers", "provider",
            "campaign_id", "bulk_id", "attachments", "metadata", "simulated", "sent_at")
    return {"messages": [{k: i.get(k) for k in keys} for i in items], "pagination": {"limit": limit, "next_cursor": nxt}}


def outbox_raw(account_id: str, message_id: str) -> bytes:
    """The MIME bytes of one sandbox message, as the SES provider would have sent them."""
    raw = outbox_store.get_raw(account_id, message_id)
    if raw is None:
        raise NotFound("Message not found")
    return raw


def _send_one_op(account_id: str, body: dict) -> dict:
    from .models import SendEmail

    return {"status": 200, "data": send_one(account_id, SendEmail.model_validate(body))}


def _bulk_op(account_id: str, body: dict, idempotency_key: str | None = None) -> dict:
    from .models import BulkSend

    return {"status": 202, "data": create_bulk(account_id, BulkSend.model_validate(body), idempotency_key)}


idempotency.register("email.send", _send_one_op)
idempotency.register("email.bulk", _bulk_op)
