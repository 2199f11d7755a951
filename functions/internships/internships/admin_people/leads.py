"""Admin leads: list with filters, PATCH status/notes, DELETE, convert to a student account.

Lead statuses: new (set by the public form), contacted, qualified, converted, lost.
``converted`` is reached only through ``convert`` (PATCH refuses it), so every converted
lead has a ``user_id``.
"""
from __future__ import annotations

from lambdakit import clock
from lambdakit.errors import BadRequest, Conflict, NotFound, ValidationFailed

from .. import activity
from . import passwords
from . import repository as repo

STATUSES = ("new", "contacted", "qualified", "converted", "lost")


def _get(lead_id: str) -> dict:
    lead = repo.get_lead(lead_id)
    if not lead:
        raise NotFound("Lead not found")
    return lead


def list_leads(*, status, domain, search, date_from, date_to, offset, limit, cursor):
    from ..admin_common.dates import iso_bounds

    if status and status not in STATUSES:
        raise ValidationFailed(f"status must be one of {', '.join(STATUSES)}", fields={"status": "Unknown status"})
    bounds = iso_bounds(date_from, date_to)
    items, nxt = repo.list_leads(status=status, domain=domain, search=search, bounds=bounds, offset=offset,
                                 limit=limit, cursor=cursor)
    total, exact = repo.count_leads(status=status, domain=domain, search=search, bounds=bounds)
    return items, total, exact, nxt


def update(admin_id: str, lead_id: str, changes: dict) -> dict:
    lead = _get(lead_id)
    status = changes.get("status")
    if status == "converted":
        raise BadRequest("Use POST /api/admin/leads/{id}/convert to convert a lead")
    if lead.get("status") == "converted" and status and status != "converted":
        raise Conflict("A converted lead cannot change status")
    sets: dict = {"updated_at": clock.now_iso(), "updated_by": admin_id}
    remove = None
    if "notes" in changes:
        if changes["notes"] in (None, ""):
            remove = ["notes"]
        else:
            sets["notes"] = changes["notes"]
    after = repo.update_lead(lead, sets, new_status=status, remove=remove)
    keys = [k for k in ("status", "notes") if k in changes]
    activity.record(admin_id, "lead.update", "lead", lead_id, before={k: lead.get(k) for k in keys},
                    after={k: after.get(k) for k in keys})
    return after


def delete(admin_id: str, lead_id: str) -> None:
    lead = _get(lead_id)
    if not repo.delete_lead(lead):
        raise NotFound("Lead not found")
    activity.record(admin_id, "lead.delete", "lead", lead_id, before=lead)


def convert(admin_id: str, lead_id: str, overrides: dict) -> dict:
    """Create a student account from the lead, email a set-password link, mark the lead converted."""
    from ..accounts import service as accounts
    from ..mail import outbox

    lead = _get(lead_id)
    if lead.get("status") == "converted":
        raise Conflict("Lead already converted")
    email = (overrides.get("email") or lead.get("email") or "").strip().lower()
    if not email:
        raise ValidationFailed("The lead has no email; provide one", fields={"email": "Field required"})
    name = overrides.get("name") or lead.get("name") or email.split("@")[0]
    phone = overrides.get("phone") or lead.get("phone")
    user = accounts.create_user(email=email, password=None, name=name, role="student",
                                phone=str(phone) if phone is not None else None)
    link, expires_at = passwords.issue_set_password_link(user["id"], purpose="lead_convert")
    email_id = outbox.enqueue("password_reset", email, {"name": name, "resetUrl": link,
                                                        "expiresMinutes": passwords.TOKEN_TTL_SECONDS // 60,
                                                        "reason": "account_created"},
                              dedupe_key=f"lead-convert:{lead_id}", user_id=user["id"])
    now = clock.now_iso()
    try:
        after = repo.update_lead(lead, {"user_id": user["id"], "converted_at": now, "converted_by": admin_id,
                                        "updated_at": now}, new_status="converted", require_not_converted=True)
    except Conflict:
        after = repo.get_lead(lead_id) or lead
    activity.record(admin_id, "lead.convert", "lead", lead_id, before={"status": lead.get("status")},
                    after={"status": "converted", "user_id": user["id"]})
    from lambdakit.model import dump

    from .models import ConvertedUser

    return {"lead": after, "user": dump(ConvertedUser, user),
            "setPasswordLink": link, "expiresAt": expires_at, "emailId": email_id}
