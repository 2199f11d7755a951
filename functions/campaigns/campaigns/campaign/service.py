"""Campaign rules: CRUD, views with stats and rates, the lifecycle and its transitions.

States: ``draft`` → ``scheduled`` (POST /send, confirm) → ``sending`` (dispatcher, when due) →
``sent`` (every batch applied). ``draft``/``scheduled``/``sending`` → ``cancelled`` (POST /cancel;
a sending campaign stops: recipients not yet sent are not sent). ``sending`` is our own state.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lambdakit import clock, ids
from lambdakit.errors import NotFound, ValidationFailed
from lambdakit.pagination import page_meta, page_request

from . import repository as repo
from . import views
from .repository import STATUSES

if TYPE_CHECKING:
    from .models import CampaignBody, CampaignCreate, SendRequest

# Cold start: the read routes (list, view, analytics) need none of the write paths' modules - the
# sending pipeline (sendctx), senders, the audience reads, events/webhooks, the body models - so
# those are imported by the functions that use them.

logger = logging.getLogger("campaigns.campaign")

EDITABLE = ["draft", "scheduled"]
#: How often an update is merged again onto a campaign another update changed meanwhile.
UPDATE_TRIES = 3
STAT_KEYS = ("sent", "delivered", "opened", "clicked", "bounced", "unsubscribed")
#: Every field of the campaign's nested objects with its default (the body models' defaults, kept
#: here so the read routes need not build the models; a test holds the two equal).
NESTED_DEFAULTS: dict[str, dict] = {
    "audience": {"type": "list", "list_id": None, "segment_id": None, "test_emails": []},
    "schedule": {"type": "immediate", "date": None},
    "tracking": {"track_opens": True, "track_clicks": True,
                 "utm_params": {"source": None, "medium": None, "campaign": None}},
    "settings": {"from_email": None, "from_name": None, "reply_to": None, "send_test": False,
                 "skip_actual_send": False, "provider": None},
}


def _merge(base: dict, over: dict) -> dict:
    """``over`` on ``base`` at every depth (objects merge, anything else - lists, null - replaces)."""
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _full(key: str, value: object) -> object:
    """A stored nested object with every field of the spec's campaign resource (defaults beneath)."""
    return _merge(NESTED_DEFAULTS[key], value) if isinstance(value, dict) else value


def _pct(n: float, d: float) -> float:
    return round(n * 100.0 / d, 2) if d else 0


def stats(item: dict, *, rates: bool) -> dict:
    s: dict[str, int | float] = {k: int(item.get(f"st_{k}", 0) or 0) for k in STAT_KEYS}
    if rates:
        s["open_rate"] = _pct(s["opened"], s["delivered"])
        s["click_rate"] = _pct(s["clicked"], s["delivered"])
        s["bounce_rate"] = _pct(s["bounced"], s["sent"])
    return s


def detail(item: dict) -> dict:
    """The campaign as ``views.CampaignOut`` shows it: its stored fields (``views.pick``), nested
    objects with every field, stats, progress and A/B results."""
    out = views.pick(views.CampaignStored, item)
    for key in NESTED_DEFAULTS:
        out[key] = _full(key, out[key])
    out["stats"] = st = stats(item, rates=True)
    st.update({"total_opens": int(item.get("st_opens_total", 0) or 0),
               "total_clicks": int(item.get("st_clicks_total", 0) or 0),
               "machine_opens": int(item.get("st_machine_opened", 0) or 0),
               "complained": int(item.get("st_complained", 0) or 0),
               "failed": int(item.get("st_failed", 0) or 0)})
    if item.get("status") in ("sending", "sent", "cancelled") and item.get("send_started_at"):
        out["progress"] = {"recipients_queued": int(item.get("fanout_recipients", 0) or 0),
                           "batches_queued": int(item.get("fanout_batches", 0) or 0),
                           "batches_done": int(item.get("batches_done", 0) or 0),
                           "fanout_done": bool(item.get("fanout_done")), "phase": item.get("phase")}
    if item.get("ab_test"):
        n = len(item["ab_test"].get("variations") or [])
        out["ab_results"] = {
            "winner": item.get("ab_winner"), "decide_at": item.get("ab_decide_at"),
            "variations": [{"index": i, "subject": item["ab_test"]["variations"][i]["subject"],
                            "sent": int(item.get(f"ab_sent_{i}", 0) or 0),
                            "opened": int(item.get(f"ab_opened_{i}", 0) or 0),
                            "open_rate": _pct(int(item.get(f"ab_opened_{i}", 0) or 0),
                                              int(item.get(f"ab_sent_{i}", 0) or 0))} for i in range(n)]}
    return out


def list_item(item: dict) -> dict:
    """A campaign as ``views.CampaignSummary`` shows it in the list."""
    return {**views.pick(views.CampaignSummary, item), "stats": stats(item, rates=False)}


def get_owned(account_id: str, cid: str, *, consistent: bool = False) -> dict:
    return owned(repo.get(cid, consistent=consistent), account_id)


def owned(item: dict | None, account_id: str) -> dict:
    """``item`` when it is a campaign of ``account_id``; otherwise 404 (another account's too)."""
    if not item or item.get("account_id") != account_id:
        raise NotFound("Campaign not found")
    return item


def _check_refs(account_id: str, body: CampaignBody) -> None:
    from ..sending import audience

    if body.audience and body.audience.type == "list" and body.audience.list_id:
        if not audience.get_list(account_id, body.audience.list_id):
            raise ValidationFailed("Unknown list", fields={"audience.list_id": "List not found"})
    if body.template_id and not audience.get_template(account_id, body.template_id):
        raise ValidationFailed("Unknown template", fields={"template_id": "Template not found"})


def _sender_field(st: dict) -> str:
    return "settings.provider.from_email" if (st.get("provider") or {}).get("from_email") else "settings.from_email"


def _check_sender(account_id: str, body: CampaignBody) -> None:
    """An explicit From address must be a verified sender of the account (at create/update; the
    resolved one, default included, is checked again when the campaign is sent)."""
    st = body.settings.model_dump() if body.settings else {}
    given = (st.get("provider") or {}).get("from_email") or st.get("from_email")
    if given:
        from ..senders import service as senders

        senders.require_verified(account_id, given, _sender_field(st))


def require_sender(item: dict) -> None:
    from ..senders import service as senders
    from .sendctx import provider_of

    st = item.get("settings") or {}
    senders.require_verified(item["account_id"], provider_of(item)["from_email"], _sender_field(st))


def _dump(body: CampaignBody, *, partial: bool) -> dict:
    data = body.model_dump(exclude_unset=partial, mode="json")
    return {k: v for k, v in data.items() if not (partial and v is None and k not in ("template_id", "ab_test"))}


def create(account_id: str, body: CampaignCreate) -> dict:
    from .. import events

    _check_refs(account_id, body)
    _check_sender(account_id, body)
    now = clock.now_iso()
    item = {"id": ids.sortable_id().lower(), "account_id": account_id, **_dump(body, partial=False),
            "name_lc": body.name.lower(), "status": "draft", "created_at": now, "updated_at": now}
    for k in STAT_KEYS:
        item[f"st_{k}"] = 0
    repo.create(item)
    events.emit(account_id, "campaign.created", {"campaign_id": item["id"], "campaign_name": item["name"],
                                                  "status": "draft", "created_at": now},
                event_key=f"campaign.created:{item['id']}")
    return views.pick(views.CampaignCreated, item)


def view(account_id: str, cid: str) -> dict:
    """The campaign's detail with the account's compliance warnings (issue 30: a send is never
    refused for them; spec-only clients know nothing of the postal address)."""
    from ..account import service as account

    out = detail(get_owned(account_id, cid))
    out["compliance_warnings"] = account.warnings(account.repo.get(account_id))
    return out


def update(account_id: str, cid: str, body: CampaignBody) -> dict:
    """A partial update, merged onto the stored campaign and written only if no other update came
    in since the read (the campaign's ``edit_rev``); on such a race it is merged again onto the newer campaign
    (at most ``UPDATE_TRIES`` times, then 409 ``CONFLICT``), so no concurrent change is lost."""
    item = get_owned(account_id, cid)
    if item["status"] not in EDITABLE:
        raise repo.InvalidState(EDITABLE, item["status"])
    _check_refs(account_id, body)
    _check_sender(account_id, body)
    for attempt in range(UPDATE_TRIES):
        if attempt:  # another update won the race: merge onto what it wrote
            item = get_owned(account_id, cid, consistent=True)
            if item["status"] not in EDITABLE:
                raise repo.InvalidState(EDITABLE, item["status"])
        changes = _changes(item, body)
        if not changes:
            return detail(item)
        try:
            return detail(repo.update_fields(cid, changes, allowed=EDITABLE, read_rev=int(item.get("edit_rev") or 0)))
        except repo.Stale:
            if attempt == UPDATE_TRIES - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _changes(item: dict, body: CampaignBody) -> dict:
    """The attributes ``body`` changes on ``item`` (empty when it changes nothing)."""
    changes = _dump(body, partial=True)
    if not changes:
        return {}
    cid = item["id"]
    # settings and tracking: partial at every depth (the fields not given keep their values).
    # audience, schedule and ab_test: their type decides which fields count, and the body model
    # validated the object given as a whole, so that object replaces the stored one, defaults filled.
    for key in ("settings", "tracking"):
        if isinstance(changes.get(key), dict):
            changes[key] = _merge(_full(key, item.get(key) or {}), changes[key])  # type: ignore[arg-type]
    for key in ("audience", "schedule", "ab_test"):
        given = getattr(body, key)
        if isinstance(changes.get(key), dict) and given is not None:
            changes[key] = given.model_dump(mode="json")
    changes["updated_at"] = clock.now_iso()
    if "name" in changes:
        changes["name_lc"] = changes["name"].lower()
    if item["status"] == "scheduled" and "schedule" in changes:
        when = _scheduled_for(changes["schedule"])
        changes.update(scheduled_for=when, gsi3pk="CAMPDUE", gsi3sk=f"{when}#{cid}")
    return changes


def list_campaigns(account_id: str, page: str | None, limit: str | None, status: str | None,
                   search: str | None) -> dict:
    req = page_request(page, limit, default_limit=20, max_limit=100)
    if status and status not in STATUSES:
        raise ValidationFailed("Invalid status", fields={"status": f"Must be one of {', '.join(STATUSES)}"})
    if search:
        # Name search reads the account's campaigns (bounded per tenant; never the emails).
        needle = search.strip().lower()
        matches = [i for i in repo.iter_account(account_id, status) if needle in (i.get("name_lc") or "")]
        chunk = matches[req.offset:req.offset + req.limit]
        return {"campaigns": [list_item(i) for i in chunk], "pagination": page_meta(req, len(matches))}
    # Read the pages before the requested one too (DynamoDB has no offsets): cost grows with the
    # page number, not with the data.
    cursor: dict | None = None
    items: list[dict] = []
    need = req.offset + req.limit
    while len(items) < need:
        got, cursor = repo.page(account_id, status, min(need - len(items), 1000), cursor)
        items.extend(got)
        if not cursor:
            break
    if cursor:
        counts = repo.counts(account_id)
        total = int(counts.get(f"n_{status}", 0) if status else counts.get("total", 0))
    else:
        # Every campaign of the index was read: their number is the counter's value (moved in
        # the same transactions as the index keys), so the counter item is not read (cold start).
        total = len(items)
    chunk = items[req.offset:req.offset + req.limit]
    return {"campaigns": [list_item(i) for i in chunk], "pagination": page_meta(req, max(total, 0))}


# ---------------------------------------------------------------- lifecycle
def _scheduled_for(schedule: dict | None) -> str:
    if schedule and schedule.get("type") == "scheduled" and schedule.get("date"):
        return schedule["date"]
    return clock.now_iso()


def _validate_sendable(account_id: str, item: dict) -> None:
    from ..common.headers import MESSAGE as HEADER_MESSAGE
    from ..common.headers import unsafe_header
    from ..sending import audience

    problems: dict[str, str] = {}
    tpl = audience.get_template(account_id, item["template_id"]) if item.get("template_id") else None
    if item.get("template_id") and not tpl:
        problems["template_id"] = "Template not found"
    if not (item.get("subject") or (tpl or {}).get("subject")):
        problems["subject"] = "A subject is required to send"
    if not (item.get("content") or (tpl or {}).get("content")):
        problems["content"] = "Content (or a template) is required to send"
    st = item.get("settings") or {}
    for field, value in (("subject", item.get("subject")), ("settings.from_name", st.get("from_name")),
                         ("settings.provider.from_name", (st.get("provider") or {}).get("from_name"))):
        if unsafe_header(value):  # stored before the API refused it (issue #17)
            problems[field] = f"The {field} {HEADER_MESSAGE}"
    aud = item.get("audience") or {}
    if not aud:
        problems["audience"] = "An audience is required to send"
    elif aud.get("type") == "list" and not audience.get_list(account_id, aud.get("list_id") or ""):
        problems["audience.list_id"] = "List not found"
    if problems:
        raise ValidationFailed("Campaign is not ready to send", fields=problems)


def request_send(account_id: str, cid: str, req: SendRequest) -> dict:
    from ..sending import repository as send_repo
    from .sendctx import estimated_recipients, send_test

    item = get_owned(account_id, cid)
    require_sender(item)
    if req.send_test:
        return send_test(item, req.test_emails)
    if req.confirm is not True:
        raise ValidationFailed("Sending needs confirmation", fields={"confirm": "Must be true to send the campaign"})
    if item["status"] != "draft":
        raise repo.InvalidState("draft", item["status"])
    _validate_sendable(account_id, item)
    when = _scheduled_for(item.get("schedule"))
    estimate = estimated_recipients(account_id, item)
    now = clock.now_iso()
    repo.transition(item, ["draft"], "scheduled",
                    set={"scheduled_for": when, "estimated_recipients": estimate, "updated_at": now,
                         "confirmed_at": now, "gsi3pk": "CAMPDUE", "gsi3sk": f"{when}#{cid}"})
    if when <= clock.now_iso():
        # Immediate: start now through the send queue instead of waiting for the next tick. The
        # campaign is recorded as due (scheduled, gsi3 CAMPDUE): if the queue refuses the start
        # message, the dispatcher's next tick starts it (within a minute), never twice.
        try:
            send_repo.enqueue([{"type": "start", "campaign_id": cid}])
        except send_repo.QueueFailed:
            logger.warning("send queue refused a campaign start; the next tick starts it", extra={"campaign_id": cid})
    return {"campaign_id": cid, "status": "scheduled", "scheduled_for": when, "estimated_recipients": estimate}


def cancel(account_id: str, cid: str) -> dict:
    item = get_owned(account_id, cid)
    now = clock.now_iso()
    repo.transition(item, ["draft", "scheduled", "sending"], "cancelled",
                    set={"cancelled_at": now, "updated_at": now}, remove=["gsi3pk", "gsi3sk"])
    fresh = get_owned(account_id, cid, consistent=True)
    return {"campaign_id": cid, "status": "cancelled", "cancelled_at": now, "previous_status": item["status"],
            "stats": stats(fresh, rates=True)}
