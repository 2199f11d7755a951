"""Admin enrollments: list with search/filters, detail, update, repair-milestones."""
from __future__ import annotations

import datetime as _dt

from lambdakit import clock
from lambdakit.errors import BadRequest, Conflict, NotFound, ValidationFailed

from .. import activity
from . import repository as repo

STATUSES = ("pending", "active", "completed", "cancelled")
PAYMENT_STATUSES = ("created", "paid", "failed", "free")
SEARCH_ATTRS = ["student_name", "student_email", "domain_name", "id", "coupon_code"]
# PUT transitions (completion goes through POST /api/admin/enrollments/{id}/approve)
TRANSITIONS = {("pending", "active"), ("pending", "cancelled"), ("active", "cancelled")}


def _get(eid: str) -> dict:
    e = repo.get_enrollment(eid)
    if not e:
        raise NotFound("Enrollment not found")
    return e


def list_enrollments(*, status, search, domain_id, payment_status, offset, limit, cursor):
    if status and status not in STATUSES:
        raise ValidationFailed(f"status must be one of {', '.join(STATUSES)}", fields={"status": "Unknown status"})
    if payment_status and payment_status not in PAYMENT_STATUSES:
        raise ValidationFailed("payment_status is unknown", fields={"payment_status": "Unknown"})
    pk, index = (f"ENROLLS#{status}", "gsi3") if status else ("ENROLLS", "gsi2")
    eq = {k: v for k, v in (("domain_id", domain_id), ("payment_status", payment_status)) if v}
    flt = repo.attr_filter(eq, (SEARCH_ATTRS, search) if search else None)
    items, nxt = repo.page(pk, index, flt=flt, offset=offset, limit=limit, cursor=cursor)
    if flt is None:
        total, exact = repo.count(f"enrollments#status#{status}" if status else "enrollments"), True
    else:
        total, exact = repo.count_query(pk, index, flt=flt)
    return items, total, exact, nxt


def detail(eid: str) -> dict:
    e = _get(eid)
    ms = repo.milestones_of(eid)
    e["milestones"] = ms
    e["progress"] = {"total": len(ms), "reviewed": sum(1 for m in ms if m.get("status") == "reviewed"),
                     "submitted": sum(1 for m in ms if m.get("status") == "submitted")}
    return e


def update(admin_id: str, eid: str, changes: dict) -> dict:
    e = _get(eid)
    now = clock.now_iso()
    status = changes.pop("status", None)
    sets = {k: v for k, v in changes.items() if v is not None}
    remove = [k for k, v in changes.items() if v is None]
    if status and status != e["status"]:
        if status == "completed":
            raise BadRequest("Use POST /api/admin/enrollments/{id}/approve to complete an enrollment")
        if (e["status"], status) not in TRANSITIONS:
            raise Conflict(f"Cannot change status from {e['status']} to {status}")
        stamp = {"active": "activated_at", "cancelled": "cancelled_at"}[status]
        repo.change_enrollment_status(e, status, {**sets, stamp: now, "updated_by": admin_id}, now)
        if remove:
            repo.set_enrollment({**e, "status": status}, {"updated_at": now}, remove)
    elif sets or remove:
        repo.set_enrollment(e, {**sets, "updated_at": now, "updated_by": admin_id}, remove)
    after = _get(eid)
    keys = (["status"] if status else []) + list(changes)
    activity.record(admin_id, "enrollment.update", "enrollment", eid, before={k: e.get(k) for k in keys},
                    after={k: after.get(k) for k in keys})
    return after


def repair_milestones(admin_id: str, eid: str) -> dict:
    """Re-create the milestones the domain plan has and the enrollment lacks. Existing milestones
    (whatever their status) are never touched; each create is conditional, so a concurrent repair
    or the normal creation path cannot duplicate one."""
    e = _get(eid)
    if e["status"] == "cancelled":
        raise Conflict("Cancelled enrollments are not repaired")
    domain = repo.get_domain(e["domain_id"])
    if not domain:
        raise NotFound("The enrollment's domain no longer exists")
    plan = domain.get("milestones") or []
    if not plan:
        raise BadRequest("The domain has no milestone plan")
    existing = {m.get("order") or int(str(m.get("id", "-0")).rsplit("-", 1)[-1]) for m in repo.milestones_of(eid)}
    now = clock.now_iso()
    start = clock.parse_iso(e.get("activated_at") or e.get("created_at") or now)
    months = int(e.get("duration") or 1)
    missing = []
    for i, step in enumerate(plan, start=1):
        if i in existing:
            continue
        due = start + _dt.timedelta(days=round(30 * months * i / len(plan)))
        missing.append({"id": f"{eid}-{i:02d}", "enrollment_id": eid, "user_id": e["user_id"],
                        "domain_id": e["domain_id"], "order": i, "title": step.get("title") or f"Milestone {i}",
                        "description": step.get("description", ""), "status": "pending",
                        "due_date": clock.iso(due), "created_at": now, "updated_at": now, "repaired": True})
    created = repo.create_missing_milestones(e, missing, now) if missing else 0
    total = len(existing | {m["order"] for m in missing})
    if total != int(e.get("milestone_count") or 0):
        repo.set_milestone_count(eid, total, now)
    if created:
        activity.record(admin_id, "enrollment.repair_milestones", "enrollment", eid,
                        before={"milestones": len(existing)}, after={"milestones": total, "created": created})
    return {"created": created, "existing": len(existing), "total": total,
            "milestones": repo.milestones_of(eid)}
