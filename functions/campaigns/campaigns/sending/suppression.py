"""Suppression after feedback, shared by SES events (``campaigns.feedback``), the sandbox's simulated
outcomes (``batches.apply_effects``) and unsubscribe links (``campaigns.tracking``): a hard bounce
marks the contact ``bounced``, a complaint or an unsubscribe marks it ``unsubscribed``; either status
suppresses every later send (``pipeline.deliver`` skips the contact). Each effect happens once: the
contacts service reports whether the status really changed, and only then do stats, counters and
``contact.unsubscribed`` follow."""
from __future__ import annotations

from lambdakit import clock

from .. import events
from ..common import keys
from ..counters import repository as counters
from . import audience
from . import repository as repo


def _contact_id(account_id: str, contact_id: str | None, email: str | None) -> str | None:
    if contact_id:
        return contact_id
    if email:
        c = audience.find_by_email(account_id, email)
        return c["id"] if c else None
    return None


def contact_bounced(account_id: str, contact_id: str | None, email: str | None, *, hard: bool) -> bool:
    cid = _contact_id(account_id, contact_id, email)
    if not hard or not cid:
        return False
    return audience.set_status(account_id, cid, "bounced", reason="hard_bounce")


def contact_unsubscribed(account_id: str, contact_id: str | None, email: str | None, *, source: str,
                         campaign_id: str | None = None, send_id: str | None = None) -> bool:
    """Unsubscribe a contact; stats and ``contact.unsubscribed`` only when it really changed. An
    unsubscribe link of a mail to an address that is no contact (a single or bulk send) creates the
    contact as ``unsubscribed``, so later sends to the address are suppressed."""
    cid = _contact_id(account_id, contact_id, email)
    created = False
    if not cid and email and source in ("link", "one_click"):
        cid = audience.create_unsubscribed(account_id, email)
        created = cid is not None
    if not cid:
        return False
    if not created and not audience.set_status(account_id, cid, "unsubscribed", reason=source):
        return False
    now = clock.now_iso()
    if campaign_id and not (send_id or "").startswith("t-"):
        repo.add_stats(keys.campaign_key(campaign_id), {"st_unsubscribed": 1})
    counters.add_day(account_id, clock.today(), {"unsubscribed": 1},
                     campaign_id=campaign_id if not (send_id or "").startswith("t-") else None)
    contact = audience.get_contacts(account_id, [cid]).get(cid) or {}
    events.emit(account_id, "contact.unsubscribed", {
        "contact_id": cid, "contact_email": contact.get("email") or email, "unsubscribed_at": now, "source": source,
        "campaign_id": campaign_id}, event_key=f"contact.unsubscribed:{cid}:{now}")
    return True


def contact_complained(account_id: str, contact_id: str | None, email: str | None, *,
                       campaign_id: str | None = None) -> bool:
    return contact_unsubscribed(account_id, contact_id, email, source="complaint", campaign_id=campaign_id)
