"""Public forms: leads, newsletter, contact, visit counter. Emails are queued, never sent inline."""
from __future__ import annotations

import logging

from lambdakit import clock, ids
from lambdakit.errors import RateLimited
from lambdakit.ratelimit import parse_rate
from lambdakit.security import sha256_hex

from ..mail import outbox
from ..settings import settings
from . import repository as repo
from .models import ContactIn, LeadIn

logger = logging.getLogger("internships.forms")


def check_rate(kind: str, ip: str, spec: str) -> dict[str, str]:
    limit, window = parse_rate(spec)
    decision = repo.rate_hit(f"form:{kind}:{ip}", limit, window)
    if not decision.allowed:
        raise RateLimited("Too many requests, please try again later", headers=decision.headers())
    return decision.headers()


def counselor_address() -> str | None:
    site = repo.site_settings()
    return site.get("siteEmail") or settings().counselor_email or settings().sender_email or None


def _queue(template: str, to: str | None, data: dict, dedupe_key: str | None = None) -> None:
    """Queue without ever failing the form: the record is already saved."""
    if not to:
        return
    try:
        outbox.enqueue(template, to, data, dedupe_key=dedupe_key)
    except Exception:  # noqa: BLE001
        logger.exception("could not queue %s email", template)


def new_lead(body: LeadIn, *, source: str = "website") -> dict:
    now = clock.now_iso()
    lead = {"id": ids.sortable_id(), "name": body.name, "domain": body.domain, "duration": body.duration,
            "phone": body.phone, "email": body.email, "source": source, "status": "new", "created_at": now,
            "updated_at": now}
    lead = {k: v for k, v in lead.items() if v is not None}
    repo.save_lead(lead)
    _queue("lead_notification", counselor_address(),
           {"leadName": body.name, "phone": body.phone, "domain": body.domain, "duration": body.duration,
            "email": body.email, "leadId": lead["id"]}, dedupe_key=f"lead:{lead['id']}")
    return lead


def subscribe(email: str) -> bool:
    """True when newly subscribed; the welcome email is queued once per address."""
    now = clock.now_iso()
    lead = {"id": ids.sortable_id(), "name": email.split("@")[0], "email": email, "source": "newsletter",
            "status": "new", "created_at": now, "updated_at": now}
    created = repo.subscribe(email, {"email": email, "subscribed_at": now, "lead_id": lead["id"]}, lead)
    # Idempotent on the address: a retry heals a welcome email that could not be queued the first time.
    _queue("welcome", email, {"email": email}, dedupe_key=f"welcome:{email}")
    return created


def contact(body: ContactIn) -> dict:
    now = clock.now_iso()
    msg = {"id": ids.sortable_id(), "name": body.name, "email": body.email, "subject": body.subject,
           "message": body.message, "status": "new", "created_at": now}
    repo.save_contact(msg)
    _queue("contact_message", counselor_address(),
           {"senderName": body.name, "senderEmail": body.email, "subject": body.subject, "message": body.message},
           dedupe_key=f"contact:{msg['id']}")
    return msg


def visit(visitor_id: str | None, ip: str) -> bool:
    day = clock.today()
    h = sha256_hex(f"{day}|{visitor_id or 'ip:' + ip}")[:32]
    return repo.count_visit(day, h, int(clock.now_ts()) + 2 * 86400)
