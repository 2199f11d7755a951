"""How a campaign is sent: its audience size, the A/B test share, content snapshot, provider choice,
the send context of its batches, and test sends (which leave the campaign's status and stats alone)."""
from __future__ import annotations

import math

from lambdakit import clock, ids

from ..account.service import postal_address
from ..sending import audience, providers
from ..sending.compose import Footer, Tracking
from ..sending.pipeline import Recipient, SendContext, deliver

TEST_PREFIX = "[Test] "


def send_id(cid: str) -> str:
    return f"c-{cid}"


def start_reads(item: dict) -> list[tuple[str, str]]:
    """The keys ``estimated_recipients`` and ``snapshot`` read for a campaign like ``item`` (its list's
    counters, its template), for the dispatcher to read with the campaign itself; they use what
    that read found (``have``) for the keys the campaign read back still names."""
    a = item.get("account_id")
    if not a:
        return []
    aud = item.get("audience") or {}
    out = [] if aud.get("type") == "test" else [audience.list_key(a, aud.get("list_id") or "")]
    return out + ([audience.template_key(a, item["template_id"])] if item.get("template_id") else [])


def resolve_content(item: dict, have: dict | None = None) -> tuple[str, str, str | None]:
    """(subject, html, text) with the campaign's own subject/content taking precedence over the template's."""
    tpl = audience.get_template(item["account_id"], item["template_id"], have) if item.get("template_id") else None
    tpl = tpl or {}
    return (item.get("subject") or tpl.get("subject") or "", item.get("content") or tpl.get("content") or "",
            tpl.get("text") or None)


def estimated_recipients(account_id: str, item: dict, have: dict | None = None) -> int:
    aud = item.get("audience") or {}
    if aud.get("type") == "test":
        return len(aud.get("test_emails") or [])
    return audience.active_count(account_id, aud.get("list_id") or "", have)


def ab_test_target(item: dict, total: int) -> int:
    """Recipients of an A/B test's test phase: ``test_size`` percent of the audience."""
    ab = item.get("ab_test") or {}
    return min(total, int(math.ceil(total * int(ab.get("test_size", 100)) / 100.0)))


def provider_of(item: dict) -> dict:
    st = item.get("settings") or {}
    p = providers.choose(st.get("provider"), send_test=bool(st.get("send_test")),
                         skip_actual_send=bool(st.get("skip_actual_send")), from_email=st.get("from_email"),
                         from_name=st.get("from_name"), reply_to=st.get("reply_to"))
    return {"name": p.name, "from_email": p.from_email, "from_name": p.from_name, "reply_to": p.reply_to}


def snapshot(item: dict, have: dict | None = None) -> dict:
    subject, html, text = resolve_content(item, have)
    return {"snap_subject": subject, "snap_html": html, "snap_text": text, "snap_provider": provider_of(item)}


def _tracking(item: dict) -> Tracking:
    t = item.get("tracking") or {}
    utm = {k: v for k, v in (t.get("utm_params") or {}).items() if v}
    return Tracking(opens=t.get("track_opens", True) is not False, clicks=t.get("track_clicks", True) is not False,
                    utm=utm)


def context(item: dict, *, sid: str | None = None, kind: str = "campaign", subject_prefix: str = "") -> SendContext:
    snap = item if item.get("snap_provider") else {**item, **snapshot(item)}
    p = snap["snap_provider"]
    ab = item.get("ab_test") or {}
    variants = [subject_prefix + v["subject"] for v in ab.get("variations") or []] or None
    return SendContext(
        account_id=item["account_id"], send_id=sid or send_id(item["id"]), kind=kind,
        subject=subject_prefix + snap["snap_subject"], html=snap["snap_html"], text=snap.get("snap_text"),
        provider=providers.ProviderChoice(p["name"], p["from_email"], p.get("from_name") or "", p.get("reply_to")),
        tracking=_tracking(item), unsubscribe=True, footer=Footer(postal_address(item["account_id"])),
        campaign_id=item["id"], variants=variants,
        variables={"campaign_name": item.get("name") or ""},
        metadata={"campaign_id": item["id"], **({"test": True} if kind == "test" else {})})


def send_test(item: dict, emails: list[str]) -> dict:
    """Send the campaign now to ``emails`` only (subject prefixed ``[Test] ``); status unchanged."""
    sid = f"t-{item['id']}-{ids.sortable_id().lower()}"
    ctx = context(item, sid=sid, kind="test", subject_prefix=TEST_PREFIX)
    ctx.variants = None
    known = audience.find_by_emails(item["account_id"], emails)
    results = []
    unique = list(dict.fromkeys(emails))  # one mail per address
    for e in unique:
        contact = known.get(e.lower())
        # A test goes to the address even if that contact unsubscribed: it is the sender's own check.
        r = deliver(ctx, Recipient(e, {**contact, "status": "active"} if contact else None))
        results.append({"email": e, "status": r.status, "message_id": r.message_id})
    # The spec's send answer names scheduled_for and estimated_recipients: a test goes out now, to these.
    now = clock.now_iso()
    return {"campaign_id": item["id"], "status": item["status"], "scheduled_for": now,
            "estimated_recipients": len(unique), "test": True, "test_emails": list(emails), "sent_at": now,
            "results": results}
