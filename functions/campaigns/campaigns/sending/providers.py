"""Providers: Amazon SES v2 (real sending) and ``sandbox`` (records the rendered message in the
outbox, never sends). The sandbox imitates SES's mailbox simulator: ``bounce@simulator.amazonses.com``
bounces and ``complaint@simulator.amazonses.com`` complains, so feedback can be exercised locally."""
from __future__ import annotations

from dataclasses import dataclass

from lambdakit import clock, ids

from ..settings import settings
from . import outbox, ses
from .message import OutboundMessage

SIMULATED = {"bounce@simulator.amazonses.com": "bounce", "complaint@simulator.amazonses.com": "complaint"}


@dataclass(frozen=True)
class ProviderChoice:
    name: str  # "ses" | "sandbox"
    from_email: str
    from_name: str
    reply_to: str | None = None


@dataclass
class SendOutcome:
    message_id: str
    status: str  # "sent" | "delivered" (sandbox) | "bounced" | "complained"


def choose(config: dict | None, *, send_test: bool = False, skip_actual_send: bool = False,
           from_email: str | None = None, from_name: str | None = None, reply_to: str | None = None) -> ProviderChoice:
    """``config`` is the spec's ``{provider, from_email, from_name}`` object (request field
    ``provider`` or campaign ``settings.provider``); the test-mode flags force the sandbox."""
    s = settings()
    config = config or {}
    name = (config.get("provider") or "").lower() or s.provider_default
    if send_test or skip_actual_send:
        name = "sandbox"
    return ProviderChoice(name=name, from_email=config.get("from_email") or from_email or s.default_from_email,
                          from_name=config.get("from_name") or from_name or s.default_from_name,
                          reply_to=reply_to)


def send(provider: str, msg: OutboundMessage, *, message_id: str | None = None) -> SendOutcome:
    """Send ``msg``. Both providers build the same bytes (``ses.render``): SES sends them, the
    sandbox stores them with the message's fields under ``message_id`` (idempotent for a given id),
    and ``GET /email/outbox/{id}/raw`` answers them."""
    raw = ses.render(msg)
    if provider == "ses":
        return SendOutcome(ses.send(msg, raw), "sent")
    mid = message_id or "sandbox-" + ids.sortable_id().lower()
    simulated = SIMULATED.get(msg.to.lower())
    outbox.put_outbox(msg.account_id, {
        "id": mid, "to": msg.to, "to_lc": msg.to.lower(), "cc": msg.cc, "bcc": msg.bcc,
        "from": f"{msg.from_name} <{msg.from_email}>" if msg.from_name else msg.from_email,
        "reply_to": msg.reply_to, "subject": msg.subject, "html": msg.html, "text": msg.text,
        "headers": msg.headers, "provider": "sandbox", "campaign_id": msg.campaign_id, "bulk_id": msg.bulk_id,
        "attachments": [{"filename": a.filename, "type": a.type, "size": len(a.content)} for a in msg.attachments],
        "metadata": msg.metadata or {}, "simulated": simulated, "sent_at": clock.now_iso(),
    }, raw)
    status = {"bounce": "bounced", "complaint": "complained"}.get(simulated or "", "delivered")
    return SendOutcome(mid, status)
