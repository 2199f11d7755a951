"""Open and click tracking, unsubscribe (a POST only) and resubscribe.

Opens and clicks are counted every time (totals) and once per recipient (unique, through a
conditional first-time marker on the recipient record). Machine opens (Apple Mail Privacy
Protection's generic user agent, security scanners, fetches within seconds of the send) are
flagged and counted apart; they never move open rates or A/B decisions.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from functools import lru_cache

from lambdakit import clock
from lambdakit.observability import count as metric

from .. import events
from ..campaign import repository as camp_repo
from ..counters import repository as counters
from ..sending import audience, suppression
from ..sending import repository as send_repo
from ..settings import settings

SCANNERS = re.compile(
    r"bot\b|crawler|spider|barracuda|mimecast|proofpoint|symantec|trendmicro|forcepoint|messagelabs|"
    r"python-requests|python-urllib|curl/|wget|go-http-client|headlesschrome|phantomjs|libwww|okhttp|"
    r"ms office protection|microsoft office existence|safelinks|linkscanner|appengine-google", re.IGNORECASE)


@dataclass
class RequestInfo:
    user_agent: str
    ip: str
    country: str | None
    city: str | None


def machine_reason(ua: str, sent_at: str | None) -> str | None:
    ua = (ua or "").strip()
    if not ua:
        return "no_user_agent"
    if ua == "Mozilla/5.0":
        return "apple_mpp"
    if SCANNERS.search(ua):
        return "scanner"
    if sent_at:
        try:
            if (clock.now() - clock.parse_iso(sent_at)).total_seconds() < settings().machine_open_window_seconds:
                return "too_fast"
        except ValueError:
            pass
    return None


@lru_cache(maxsize=2048)
def device(ua: str) -> dict[str, str]:
    """Device type, OS and email client/browser of a user agent (ua-parser, imported lazily)."""
    if not ua:
        return {"type": "unknown", "os": "unknown", "client": "unknown"}
    from ua_parser import parse

    r = parse(ua)
    os_name = r.os.family if r.os else "Other"
    client = r.user_agent.family if r.user_agent else "Other"
    low = ua.lower()
    if "ipad" in low or "tablet" in low:
        kind = "tablet"
    elif r.device and r.device.family not in ("Other", None) and (
            "mobile" in low or "iphone" in low or "android" in low):
        kind = "mobile"
    elif "mobile" in low or "iphone" in low:
        kind = "mobile"
    elif os_name in ("Windows", "Mac OS X", "Linux", "Ubuntu", "Chrome OS", "macOS"):
        kind = "desktop"
    else:
        kind = "unknown" if os_name == "Other" else "desktop"
    return {"type": kind, "os": os_name or "Other", "client": client or "Other"}


def _recipient(payload: dict) -> dict | None:
    rec = send_repo.get_recipient(payload["s"], payload["r"])
    if not rec or rec.get("account_id") != payload["a"]:
        return None
    return rec


def _trackable(payload: dict) -> tuple[dict, str | None]:
    """The recipient record, or a reason not to record (unknown recipient, test send)."""
    rec = _recipient(payload)
    if not rec:
        return {}, "unknown"
    if rec.get("kind") == "test" or payload["s"].startswith("t-"):
        return rec, "test"
    return rec, None


def record_open(payload: dict, req: RequestInfo) -> str:
    rec, skip = _trackable(payload)
    if skip:
        return skip
    a, cid, now, today = payload["a"], rec.get("campaign_id"), clock.now_iso(), clock.today()
    reason = machine_reason(req.user_agent, rec.get("sent_at"))
    if reason:
        send_repo.mark_first(payload["s"], payload["r"], "machine_opened_at", now)
        if cid:
            camp_repo.add_stats(cid, {"st_machine_opened": 1})
        counters.add_day(a, today, {"machine_opened": 1}, campaign_id=cid)
        return f"machine:{reason}"
    first = send_repo.mark_first(payload["s"], payload["r"], "opened_at", now)
    if cid:
        add = {"st_opens_total": 1, "st_opened": int(first)}
        if first and rec.get("variant") is not None:
            add[f"ab_opened_{int(rec['variant'])}"] = 1
        camp_repo.add_stats(cid, add)
    counters.add_day(a, today, {"opened": 1, "unique_opened": int(first)}, campaign_id=cid,
                     provider=rec.get("provider"))
    counters.add_engagement(a, today, "opened", country=req.country, city=req.city, device=device(req.user_agent))
    metric("EmailOpens")
    if cid:
        events.emit(a, "campaign.opened", {
            "campaign_id": cid, "contact_id": rec.get("contact_id"), "contact_email": rec.get("email"),
            "opened_at": now, "user_agent": req.user_agent, "ip_address": req.ip,
            "location": {"country": req.country, "city": req.city}, "unique": first})
    return "unique" if first else "repeat"


def record_click(payload: dict, url: str, req: RequestInfo, *, clicked_url: str | None) -> str:
    rec, skip = _trackable(payload)
    if skip:
        return skip
    a, cid, now, today = payload["a"], rec.get("campaign_id"), clock.now_iso(), clock.today()
    reason = machine_reason(req.user_agent, None)
    if reason:
        counters.add_day(a, today, {"machine_clicked": 1}, campaign_id=cid)
        return f"machine:{reason}"
    first = send_repo.mark_first(payload["s"], payload["r"], "clicked_at", now)
    # A click implies the mail was opened (images may be blocked): count a unique open once.
    opened_first = send_repo.mark_first(payload["s"], payload["r"], "opened_at", now)
    if cid:
        add = {"st_clicks_total": 1, "st_clicked": int(first)}
        if opened_first:
            add["st_opened"] = 1
            if rec.get("variant") is not None:
                add[f"ab_opened_{int(rec['variant'])}"] = 1
        camp_repo.add_stats(cid, add)
        counters.add_link_click(cid, url, first)
    counters.add_day(a, today, {"clicked": 1, "unique_clicked": int(first), "unique_opened": int(opened_first)},
                     campaign_id=cid, provider=rec.get("provider"))
    counters.add_engagement(a, today, "clicked", country=req.country, city=req.city, device=device(req.user_agent))
    metric("EmailClicks")
    if cid:
        events.emit(a, "campaign.clicked", {
            "campaign_id": cid, "contact_id": rec.get("contact_id"), "contact_email": rec.get("email"),
            "clicked_at": now, "url": url, "clicked_url": clicked_url, "user_agent": req.user_agent,
            "ip_address": req.ip, "unique": first})
    return "unique" if first else "repeat"


#: how long the "subscribe again" offer of an unsubscribe link stays open after its unsubscribe
RESUBSCRIBE_DAYS = 7


def _sender(rec: dict) -> str:
    """The From name (or address) the recipient got the mail from."""
    p: dict = {}
    if rec.get("campaign_id"):
        item = camp_repo.get(rec["campaign_id"]) or {}
        p = item.get("snap_provider") or ((item.get("settings") or {}).get("provider") or {})
        p = {"from_name": p.get("from_name") or (item.get("settings") or {}).get("from_name"),
             "from_email": p.get("from_email")}
    elif rec.get("bulk_id"):
        p = (send_repo.get_bulk(rec["bulk_id"]) or {}).get("provider") or {}
    s = settings()
    return str(p.get("from_name") or s.default_from_name or p.get("from_email") or s.default_from_email or
               "this sender")


def subscriber(payload: dict) -> dict | None:
    """What the unsubscribe pages show: ``{email, sender, resubscribe_until}`` (the last ``None``
    unless this link unsubscribed the contact within ``RESUBSCRIBE_DAYS``); ``None`` for a
    recipient that is not (or no longer) recorded."""
    rec = _recipient(payload)
    if not rec:
        return None
    until = None
    if rec.get("unsubscribed_at"):
        end = clock.parse_iso(rec["unsubscribed_at"]) + dt.timedelta(days=RESUBSCRIBE_DAYS)
        if end > clock.now():
            until = end.strftime("%Y-%m-%d %H:%M")
    return {"email": rec.get("email") or "", "sender": _sender(rec), "resubscribe_until": until}


def unsubscribe(payload: dict, *, source: str) -> bool:
    """Unsubscribe the link's contact (a POST: the page's button, or RFC 8058's one-click). When
    this link made the change, the recipient record notes it: it opens the resubscribe window."""
    rec = _recipient(payload)
    contact_id = payload.get("t") or (rec or {}).get("contact_id")
    email = (rec or {}).get("email")
    if not contact_id and not email:
        return False
    changed = suppression.contact_unsubscribed(payload["a"], contact_id, email, source=source,
                                               campaign_id=(rec or {}).get("campaign_id"), send_id=payload["s"])
    if changed and rec:
        send_repo.mark_recipient(payload["s"], payload["r"], set={"unsubscribed_at": clock.now_iso(),
                                                                  "unsubscribe_source": source})
    return changed


def resubscribe(payload: dict) -> str:
    """``done`` (the contact is active again), ``expired`` (no open window: this link did not
    unsubscribe the contact, or longer than ``RESUBSCRIBE_DAYS`` ago) or ``not_unsubscribed`` (the
    contact is active, bounced or gone). A bounced contact is never made active here."""
    info = subscriber(payload)
    if not info or not info["resubscribe_until"]:
        return "expired"
    rec = _recipient(payload) or {}
    cid = payload.get("t") or rec.get("contact_id")
    if not cid and rec.get("email"):
        found = audience.find_by_email(payload["a"], rec["email"])
        cid = found["id"] if found else None
    contact = audience.get_contacts(payload["a"], [cid]).get(cid) if cid else None
    if not cid or not contact or contact.get("status") != "unsubscribed":
        return "not_unsubscribed"
    audience.set_status(payload["a"], cid, "active", reason="resubscribe")
    send_repo.mark_recipient(payload["s"], payload["r"], remove=["unsubscribed_at", "unsubscribe_source"],
                             set={"resubscribed_at": clock.now_iso()})
    return "done"
