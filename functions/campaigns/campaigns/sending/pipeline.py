"""Per-recipient delivery, exactly once in effect.

For every recipient a record is claimed with a conditional put *before* the provider is called.
A redelivered or retried batch finds the record and does not send again; it reuses the recorded
outcome for the batch counters, which are applied once per batch in a transaction with the
batch's completion marker. A crash between claim and send leaves a ``claimed`` record: that
recipient is not retried (at most once on the rare ambiguous crash; never twice).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from email.errors import MessageError
from typing import Callable

from lambdakit import clock, ids
from lambdakit.observability import count as metric
from lambdakit.security import sha256_hex

from ..settings import settings
from . import audience, providers, ses
from . import repository as repo
from .compose import Footer, Tracking, compose
from .message import Attachment, OutboundMessage, Unrenderable


@dataclass
class SendContext:
    account_id: str
    send_id: str
    kind: str  # campaign | bulk | single | test
    subject: str
    html: str | None
    text: str | None
    provider: providers.ProviderChoice
    tracking: Tracking = field(default_factory=Tracking)
    unsubscribe: bool = False
    #: the marketing footer (unsubscribe link, postal address); with ``unsubscribe`` only
    footer: Footer | None = None
    variables: dict = field(default_factory=dict)
    campaign_id: str | None = None
    bulk_id: str | None = None
    variants: list[str] | None = None
    cc: list[str] = field(default_factory=list)
    bcc: list[str] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    metadata: dict = field(default_factory=dict)
    is_stopped: Callable[[], bool] = lambda: False
    #: Set when the whole send cannot go out (e.g. its sender is no longer the account's verified
    #: identity): every recipient is recorded ``failed`` with this reason.
    refused: str | None = None
    #: Set when the message cannot be composed (an uploaded attachment expired): recipients fail.
    blocked: str | None = None


@dataclass
class Recipient:
    email: str
    contact: dict | None = None
    variables: dict = field(default_factory=dict)
    variant: int | None = None

    @property
    def rkey(self) -> str:
        if self.contact and self.contact.get("id"):
            return str(self.contact["id"])
        return "e" + sha256_hex(self.email.strip().lower())[:24]


@dataclass
class Result:
    rkey: str
    email: str
    status: str  # delivered | sent | bounced | complained | skipped | failed | claimed | stopped
    message_id: str | None = None
    contact_id: str | None = None
    variant: int | None = None
    fresh: bool = True  # decided in this attempt (not found from an earlier one)


class Throttled(Exception):
    """The provider or a rate limit says: not now. The batch is retried later."""


def contact_variables(contact: dict | None, email: str) -> dict:
    out: dict = {"email": email}
    if contact:
        for k in ("first_name", "last_name", "phone", "email"):
            if contact.get(k) is not None:
                out[k] = contact[k]
        out.update({k: v for k, v in (contact.get("custom_fields") or {}).items() if k not in out})
    return out


def deliver(ctx: SendContext, r: Recipient) -> Result:
    rkey = r.rkey
    cid = (r.contact or {}).get("id")
    base = {"account_id": ctx.account_id, "email": r.email, "contact_id": cid, "campaign_id": ctx.campaign_id,
            "bulk_id": ctx.bulk_id, "variant": r.variant, "provider": ctx.provider.name, "kind": ctx.kind}
    if r.contact and r.contact.get("status", "active") != "active":
        existing = repo.claim(ctx.send_id, rkey, {**base, "status": "skipped", "reason": r.contact.get("status")})
        status = existing.get("status", "skipped") if existing else "skipped"
        if existing is None:
            metric("EmailsSuppressed", provider=ctx.provider.name)
        return Result(rkey, r.email, status, contact_id=cid, variant=r.variant, fresh=existing is None)
    planned = "sandbox-" + ids.sortable_id().lower()
    existing = repo.claim(ctx.send_id, rkey, {**base, "planned_id": planned})
    if existing is not None:
        if not (existing.get("status") == "claimed" and ctx.provider.name == "sandbox" and existing.get("planned_id")):
            return Result(rkey, r.email, existing.get("status", "claimed"), existing.get("message_id"), cid,
                          r.variant, fresh=False)
        # A crash between claim and send: the sandbox's write is keyed by the planned id, so
        # finishing it now cannot record the message twice. (SES has no such key: at most once.)
        planned = existing["planned_id"]
    if ctx.refused or ctx.blocked:
        return _failed(ctx, r, rkey, ctx.refused or ctx.blocked or "")
    try:
        msg = _render(ctx, r, rkey)
        out = providers.send(ctx.provider.name, msg, message_id=planned)
    except ses.SendThrottled:
        repo.release_claim(ctx.send_id, rkey)
        raise Throttled("provider throttled") from None
    except ses.SendRejected as exc:
        return _failed(ctx, r, rkey, str(exc))
    except (Unrenderable, MessageError) as exc:
        # Deterministic: the same message fails the same way on every retry. Recorded ``failed``
        # with its reason (never left ``claimed``), and the batch goes on with the next recipient.
        return _failed(ctx, r, rkey, str(exc) or type(exc).__name__)
    repo.finish(ctx.send_id, rkey, out.status, message_id=out.message_id, sent_at=clock.now_iso())
    send_metrics(ctx.provider.name, out.status)
    return Result(rkey, r.email, out.status, out.message_id, cid, r.variant)


def send_metrics(provider: str, status: str) -> None:
    """Business metrics of one accepted message, once its recipient record says so: always
    ``EmailsSent``; the sandbox also knows the outcome at once (delivered, bounced, complained,
    where a complaint implies delivery). SES outcomes are counted by the feedback worker."""
    metric("EmailsSent", provider=provider)
    if status in ("delivered", "complained"):
        metric("EmailsDelivered", provider=provider)
    if status == "bounced":
        metric("EmailsBounced", provider=provider)
    elif status == "complained":
        metric("EmailsComplained", provider=provider)


def _failed(ctx: SendContext, r: Recipient, rkey: str, reason: str) -> Result:
    repo.finish(ctx.send_id, rkey, "failed", error=reason[:200], failed_at=clock.now_iso())
    metric("EmailsFailed", provider=ctx.provider.name)
    return Result(rkey, r.email, "failed", None, (r.contact or {}).get("id"), r.variant)


def _render(ctx: SendContext, r: Recipient, rkey: str) -> OutboundMessage:
    """The recipient's message, checked for header injection (raises ``Unrenderable``)."""
    link = {"a": ctx.account_id, "s": ctx.send_id, "r": rkey, "t": (r.contact or {}).get("id"), "v": r.variant}
    subject = ctx.subject
    if ctx.variants and r.variant is not None and 0 <= r.variant < len(ctx.variants):
        subject = ctx.variants[r.variant]
    variables = {**contact_variables(r.contact, r.email), **ctx.variables, **r.variables}
    c = compose(subject, ctx.html, ctx.text, variables, tracking=ctx.tracking, link_payload=link,
                unsubscribe=ctx.unsubscribe, footer=ctx.footer)
    msg = OutboundMessage(account_id=ctx.account_id, to=r.email, subject=c.subject, html=c.html, text=c.text,
                          from_email=ctx.provider.from_email, from_name=ctx.provider.from_name,
                          reply_to=ctx.provider.reply_to, cc=ctx.cc, bcc=ctx.bcc, headers=c.headers,
                          attachments=ctx.attachments, campaign_id=ctx.campaign_id, bulk_id=ctx.bulk_id,
                          send_id=ctx.send_id, rkey=rkey, metadata=ctx.metadata)
    msg.check()
    return msg


def resolve_contacts(account_id: str, entries: list[dict]) -> list[Recipient]:
    """Batch message entries (``{"c": contact_id}`` or ``{"e": email, "vars": {}}``) → recipients,
    with the contact's current status (suppression is checked at send time)."""
    ids_ = [e["c"] for e in entries if e.get("c")]
    emails = [e["e"] for e in entries if e.get("e") and not e.get("c")]
    by_id = audience.get_contacts(account_id, ids_) if ids_ else {}
    by_email = audience.find_by_emails(account_id, emails) if emails else {}
    out: list[Recipient] = []
    for e in entries:
        if e.get("c"):
            contact = by_id.get(e["c"])
            if not contact:
                continue  # deleted since fan-out: nobody to send to
            out.append(Recipient(contact["email"], contact, e.get("vars") or {}, e.get("v")))
        else:
            out.append(Recipient(e["e"], by_email.get(e["e"].strip().lower()), e.get("vars") or {}, e.get("v")))
    return out


class RateGate:
    """Paces sends to the provider's rate (SES MaxSendRate) and the per-account limit, shared by all
    workers through atomic one-second counters."""

    def __init__(self, account_id: str, provider: str, deadline: Callable[[], float]) -> None:
        s = settings()
        self.limits = [(f"send#{account_id}", s.account_send_rate_per_second)]
        if provider == "ses":
            self.limits.append(("send#ses", int(ses.max_send_rate())))
        self.deadline = deadline
        self.allowance = 0

    @property
    def chunk(self) -> int:
        return max(1, min(25, *(lim for _, lim in self.limits)))

    def take(self) -> None:
        if self.allowance > 0:
            self.allowance -= 1
            return
        n = self.chunk
        while True:
            decisions = [repo.rate_hit(subj, lim, n) for subj, lim in self.limits]
            if all(d.allowed for d in decisions):
                self.allowance = n - 1
                return
            wait = min(1.0, max(0.05, max(d.reset_at for d in decisions) - clock.now_ts()))
            if self.deadline() < wait + 5:
                raise Throttled("rate limit reached and no time left in this invocation")
            time.sleep(wait)  # sub-second pacing inside a batch, not scheduling


def count(results: list[Result], provider: str) -> dict[str, int]:
    """Batch counters from the recipients' outcomes. For SES only ``sent`` is counted here:
    delivery, bounce and complaint arrive later through the feedback worker, which counts them."""
    c = {"sent": 0, "delivered": 0, "bounced": 0, "complained": 0, "failed": 0, "skipped": 0}
    for r in results:
        if r.status in ("sent", "claimed") or (provider == "ses" and r.status in (
                "delivered", "opened", "clicked", "bounced", "complained")):
            c["sent"] += 1
        elif r.status in ("delivered", "opened", "clicked"):
            c["sent"] += 1
            c["delivered"] += 1
        elif r.status in ("bounced", "complained"):
            c["sent"] += 1
            c[r.status] += 1
            if r.status == "complained":
                c["delivered"] += 1
        elif r.status in ("failed", "skipped"):
            c[r.status] += 1
    return c
