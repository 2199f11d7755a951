"""Public forms: leads, newsletter, contact, visit counter. Emails are queued, never sent inline."""
from __future__ import annotations

import logging

from lambdakit import clock, ids
from lambdakit.errors import BadRequest, Contention, RateLimited
from lambdakit.ratelimit import parse_rate
from lambdakit.security import sha256_hex

from ..mail import outbox
from ..settings import settings
from . import repository as repo
from .models import ContactIn, LeadIn

logger = logging.getLogger("internships.forms")
#: attempts at storing a subscription whose condition failed with no subscriber there
SUBSCRIBE_ATTEMPTS = 3


def check_rate(kind: str, ip: str, spec: str) -> dict[str, str]:
    limit, window = parse_rate(spec)
    decision = repo.rate_hit(f"form:{kind}:{ip}", limit, window)
    if not decision.allowed:
        raise RateLimited("Too many requests, please try again later", headers=decision.headers())
    return decision.headers()


def counselor_address() -> str | None:
    site = repo.site_settings()
    return site.get("siteEmail") or settings().counselor_email or settings().sender_email or None


def _mail(template: str, to: str | None, data: dict, dedupe_key: str) -> tuple[str | None, list[dict]]:
    """The email of a form as writes of the form's own transaction (the transactional outbox:
    the email exists exactly when the record does; issue 23 rule 4). No address: no email."""
    if not to:
        return None, []
    try:
        return outbox.pending(template, to, data, dedupe_key=dedupe_key)
    except BadRequest:  # a misconfigured counselor address must not refuse the visitor's form
        logger.error("no %s email: invalid recipient address", template)
        return None, []


def _announce(email_id: str | None) -> None:
    if email_id:
        outbox.announce(email_id)


def new_lead(body: LeadIn, *, source: str = "website") -> dict:
    now = clock.now_iso()
    lead = {"id": ids.sortable_id(), "name": body.name, "domain": body.domain, "duration": body.duration,
            "phone": body.phone, "email": body.email, "source": source, "status": "new", "created_at": now,
            "updated_at": now}
    lead = {k: v for k, v in lead.items() if v is not None}
    email_id, mail_ops = _mail("lead_notification", counselor_address(),
                               {"leadName": body.name, "phone": body.phone, "domain": body.domain,
                                "duration": body.duration, "email": body.email, "leadId": lead["id"]},
                               f"lead:{lead['id']}")
    repo.save_lead(lead, mail_ops)
    _announce(email_id)
    return lead


def subscribe(email: str) -> bool:
    """True when newly subscribed; the welcome email is written with the subscriber, once per address."""
    welcome = True
    for _ in range(SUBSCRIBE_ATTEMPTS):
        now = clock.now_iso()
        lead = {"id": ids.sortable_id(), "name": email.split("@")[0], "email": email, "source": "newsletter",
                "status": "new", "created_at": now, "updated_at": now}
        email_id, mail_ops = _mail("welcome", email, {"email": email}, f"welcome:{email}") if welcome else (None, [])
        created = repo.subscribe(email, {"email": email, "subscribed_at": now, "lead_id": lead["id"]}, lead,
                                 mail_ops)
        if created is not None:
            if created:
                _announce(email_id)
            return created
        # the condition failed but no subscriber is there: a fault or a collision, retried (an address
        # whose welcome was sent before keeps it: once per address)
        welcome = welcome and not outbox.queued(f"welcome:{email}")
    raise Contention("Could not subscribe, please retry")


def contact(body: ContactIn) -> dict:
    now = clock.now_iso()
    msg = {"id": ids.sortable_id(), "name": body.name, "email": body.email, "subject": body.subject,
           "message": body.message, "status": "new", "created_at": now}
    email_id, mail_ops = _mail("contact_message", counselor_address(),
                               {"senderName": body.name, "senderEmail": body.email, "subject": body.subject,
                                "message": body.message}, f"contact:{msg['id']}")
    repo.save_contact(msg, mail_ops)
    _announce(email_id)
    return msg


# ---------------------------------------------------------------- visitors (issue 32 item 7)
VISITOR_COOKIE = "visitor-id"
VISITOR_COOKIE_MAX_AGE = 365 * 86400


def _visitor_mac(vid: str) -> str:
    import hashlib
    import hmac

    from ..auth.tokens import signing_key

    # its own derived key: a visitor cookie can never be mistaken for (or forge) an access token
    key = hmac.new(signing_key().encode(), b"internships visitor cookie v1", hashlib.sha256).digest()
    return hmac.new(key, vid.encode(), hashlib.sha256).hexdigest()[:32]


def issued_visitor(cookie: str | None) -> str | None:
    """The visitor id of a cookie this service issued (``<id>.<mac>``), else ``None``."""
    from lambdakit.security import constant_time_equals

    if not cookie or len(cookie) > 100 or cookie.count(".") != 1:
        return None
    vid, mac = cookie.split(".")
    return vid if vid and constant_time_equals(mac, _visitor_mac(vid)) else None


def new_visitor_cookie() -> tuple[str, str]:
    """``(visitor id, cookie value)`` of a newly issued visitor."""
    vid = ids.new_id().replace("-", "")
    return vid, f"{vid}.{_visitor_mac(vid)}"


def visit(visitor_id: str, ip: str) -> bool:
    """Count ``visitor_id`` (one the service issued) once per UTC day; each address may add at most
    ``visit_new_per_ip_per_day`` new visitors a day."""
    day = clock.today()
    h = sha256_hex(f"{day}|{visitor_id}")[:32]
    return repo.count_visit(day, h, sha256_hex(f"{day}|ip:{ip}")[:32], settings().visit_new_per_ip_per_day,
                            int(clock.now_ts()) + 2 * 86400)
