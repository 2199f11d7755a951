"""Admin enrollments: list with search/filters, detail, update, repair-milestones."""
from __future__ import annotations

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
        if status == "active":
            # same path as a confirmed payment: milestones, invoice, confirmation email (idempotent)
            from ..enrollments import service as enrollment_service

            enrollment_service.activate(e, payment_id=None, source="admin")
        else:
            repo.cancel_enrollment(e, now)
        if sets or remove:
            repo.set_enrollment({**e, "status": status}, {**sets, "updated_at": now, "updated_by": admin_id}, remove)
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
    from ..learning import plan as milestone_plan

    existing = {int(m.get("order") or 0) for m in repo.milestones_of(eid)}
    now = clock.now_iso()
    built = milestone_plan.build(e, plan, e.get("activated_at") or e.get("created_at") or now)
    missing = [{**m, "repaired_at": now} for m in built if m["order"] not in existing]
    created = repo.create_missing_milestones(missing) if missing else 0
    total = len(existing | {m["order"] for m in missing})
    if total != int(e.get("milestone_count") or 0):
        repo.set_milestone_count(eid, total, now)
    if created:
        activity.record(admin_id, "enrollment.repair_milestones", "enrollment", eid,
                        before={"milestones": len(existing)}, after={"milestones": total, "created": created})
    return {"created": created, "existing": len(existing), "total": total,
            "milestones": repo.milestones_of(eid)}
