"""SES feedback: delivery, bounce, complaint, open and click events applied to the recipient record,
the stats counters and the events, each once (recipient records change status conditionally).
The contact side (hard bounce → ``bounced``, complaint → ``unsubscribed``) is the suppression rule
of ``campaigns.sending.suppression``, shared with the sandbox and unsubscribe links; opens and
clicks are tracking's rules (``campaigns.tracking.service``)."""
from __future__ import annotations

from lambdakit import clock
from lambdakit.observability import count as metric

from .. import events
from ..campaign import repository as camp_repo
from ..counters import repository as counters
from ..sending import repository as send_repo
from ..sending.suppression import contact_bounced, contact_complained, contact_unsubscribed
from ..tracking import service as tracking

__all__ = ["apply_ses_event", "contact_bounced", "contact_complained", "contact_unsubscribed"]


# ---------------------------------------------------------------- SES events
def _tag(mail: dict, name: str) -> str | None:
    v = (mail.get("tags") or {}).get(name)
    return v[0] if isinstance(v, list) and v else (v if isinstance(v, str) else None)


def _campaign_of(send_id: str | None) -> str | None:
    return send_id[2:] if send_id and send_id.startswith("c-") else None


def apply_ses_event(detail: dict) -> str:
    """Apply one SES event (the ``detail`` of an EventBridge event). Returns what was done."""
    kind = (detail.get("eventType") or detail.get("notificationType") or "").lower()
    mail = detail.get("mail") or {}
    account_id, send_id, rkey = _tag(mail, "account"), _tag(mail, "send"), _tag(mail, "rkey")
    if not account_id:
        return "ignored: untagged"
    rec = send_repo.get_recipient(send_id, rkey) if send_id and rkey else None
    if rec and rec.get("account_id") != account_id:
        return "ignored: tenant mismatch"
    campaign_id = (rec or {}).get("campaign_id") or _campaign_of(send_id)
    is_test = (send_id or "").startswith("t-")
    email = (rec or {}).get("email") or ((mail.get("destination") or [None])[0])
    contact_id = (rec or {}).get("contact_id")
    common = {"message_id": mail.get("messageId"), "email": email, "contact_id": contact_id,
              "campaign_id": campaign_id, "bulk_id": (rec or {}).get("bulk_id"), "provider": "ses"}
    today = clock.today()

    def move(status: str, allowed: list[str], **fields: str) -> bool:
        """The recipient record's conditional status move (False without a record)."""
        return bool(rec and send_id and rkey
                    and send_repo.set_recipient_status(send_id, rkey, status, allowed, **fields))

    def count(field: str, stat: str) -> None:
        if is_test:
            return
        if campaign_id:
            camp_repo.add_stats(campaign_id, {stat: 1})
        bulk_id = (rec or {}).get("bulk_id")
        if bulk_id:
            camp_bulk = send_repo.bulk_key(bulk_id)
            send_repo.table().update(*camp_bulk, add={stat: 1}, return_values="NONE")
        counters.add_day(account_id, today, {field: 1}, campaign_id=campaign_id, provider="ses")

    if kind == "delivery":
        if move("delivered", ["sent", "claimed"], delivered_at=clock.now_iso()):
            count("delivered", "st_delivered")
            metric("EmailsDelivered", provider="ses")
            events.emit(account_id, "email.delivered", {**common, "delivered_at": (detail.get("delivery") or {}).get(
                "timestamp") or clock.now_iso()}, event_key=f"email.delivered:{send_id}:{rkey}")
            return "delivered"
        return "duplicate"
    if kind == "bounce":
        b = detail.get("bounce") or {}
        hard = b.get("bounceType") == "Permanent"
        changed = rec is None or move("bounced", ["sent", "claimed", "delivered"], bounced_at=clock.now_iso())
        if not changed:
            # A redelivery after a failure past the move: the suppression is idempotent, apply it
            # again so a hard-bounced address ends suppressed (stats/events stay counted once).
            for br in b.get("bouncedRecipients") or [{"emailAddress": email}]:
                addr = br.get("emailAddress") or email
                contact_bounced(account_id, contact_id if addr == email else None, addr, hard=hard)
            return "duplicate"
        if rec:
            count("bounced", "st_bounced")
            metric("EmailsBounced", provider="ses")
        for br in b.get("bouncedRecipients") or [{"emailAddress": email}]:
            addr = br.get("emailAddress") or email
            contact_bounced(account_id, contact_id if addr == email else None, addr, hard=hard)
            events.emit(account_id, "email.bounced", {
                **common, "email": addr, "bounce_type": "hard" if hard else "soft",
                "bounce_subtype": b.get("bounceSubType"), "diagnostic": br.get("diagnosticCode"),
                "bounced_at": b.get("timestamp") or clock.now_iso()}, event_key=f"email.bounced:{send_id}:{rkey}:{addr}")
        return "bounced"
    if kind == "complaint":
        if rec and not move("complained", ["sent", "claimed", "delivered"], complained_at=clock.now_iso()):
            contact_complained(account_id, contact_id, email, campaign_id=campaign_id)  # idempotent, see bounce
            return "duplicate"
        if rec:
            count("complained", "st_complained")
            metric("EmailsComplained", provider="ses")
        contact_complained(account_id, contact_id, email, campaign_id=campaign_id)
        return "complained"
    if kind in ("open", "click") and rec:
        info = detail.get(kind) or {}
        req = tracking.RequestInfo(user_agent=info.get("userAgent") or "", ip=info.get("ipAddress") or "",
                                   country=None, city=None)
        payload = {"a": account_id, "s": send_id, "r": rkey}
        if kind == "open":
            tracking.record_open(payload, req)
        else:
            tracking.record_click(payload, info.get("link") or "", req, clicked_url=None)
        return kind
    return f"ignored: {kind or 'unknown'}"
