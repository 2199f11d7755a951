"""Milestone rules: listing with sequential locks, submission, review, forced status; resources.

A milestone is locked while any earlier one is not ``reviewed``. Submit needs notes of at least 10
characters, status ``pending`` or ``rejected``, the previous milestone ``reviewed`` and the
enrollment ``active`` — all checked inside the same transaction as the write.
"""
from __future__ import annotations

from collections.abc import Mapping

from lambdakit import clock
from lambdakit.errors import BadRequest, ConditionFailed, Conflict, Contention, Forbidden, NotFound

from . import plan
from . import repository as repo

STAFF_VIEW = ("review_milestones", "view_students", "manage_enrollments")
#: attempts at a review whose condition failed while the milestone read back is still submitted
REVIEW_ATTEMPTS = 3


def view(m: dict, locked: bool) -> dict:
    return {"id": m["id"], "enrollmentId": m["enrollment_id"], "order": m["order"], "title": m["title"],
            "description": m.get("description", ""), "status": m["status"], "locked": locked,
            "dueDate": m.get("due_date"), "submissionNotes": m.get("submission_notes"),
            "submissionUrl": m.get("submission_url"), "submittedAt": m.get("submitted_at"),
            "remarks": m.get("remarks"), "reviewedAt": m.get("reviewed_at")}


def with_locks(items: list[dict]) -> list[dict]:
    out, open_ = [], True
    for m in sorted(items, key=lambda x: x["order"]):
        out.append(view(m, not open_))
        open_ = open_ and m["status"] == "reviewed"
    return out


def _enrollment_for(p, eid: str, read: Mapping | None = None) -> dict:
    e = repo.enrollment(eid, read)
    if not e:
        raise NotFound("Enrollment not found")
    if e["user_id"] != p.user_id and not (p.is_staff and any(p.has(x) for x in STAFF_VIEW)):
        raise NotFound("Enrollment not found")
    return e


def list_milestones(p, eid: str | None, read: Mapping | None = None) -> dict:
    """``read``: items read with authentication (``auth.read_with_auth``), the enrollment among them."""
    if not eid:
        raise BadRequest("enrollmentId is required")
    e = _enrollment_for(p, eid, read)
    return {"enrollmentId": e["id"], "enrollmentStatus": e["status"],
            "milestones": with_locks(repo.list_for_enrollment(e["id"]))}


def _milestone(mid: str, read: Mapping | None = None) -> dict:
    """The milestone, strongly consistent (``read``: items read with authentication, consistently)."""
    parsed = plan.parse_id(mid)
    m = repo.get(*parsed, read=read) if parsed else None
    if not m:
        raise NotFound("Milestone not found")
    return m


def submit(p, mid: str, data) -> dict:
    m = _milestone(mid)
    if m["user_id"] != p.user_id:
        raise NotFound("Milestone not found")
    if len(data.submissionNotes) < 10:
        raise BadRequest("submissionNotes must be at least 10 characters")
    if m["status"] not in ("pending", "rejected"):
        raise Conflict(f"A {m['status']} milestone cannot be submitted")
    checks = [repo.enrollment_check(m["enrollment_id"], "active")]
    if m["order"] > 1:
        prev = repo.get(m["enrollment_id"], m["order"] - 1)
        if not prev or prev["status"] != "reviewed":
            raise Conflict("This milestone is locked until the previous one is reviewed")
        checks.append(repo.status_check(m["enrollment_id"], m["order"] - 1, "reviewed"))
    now = clock.now_iso()
    fields = {"submission_notes": data.submissionNotes, "submitted_at": now}
    if data.submissionUrl:
        fields["submission_url"] = data.submissionUrl
    try:
        m = repo.change_status(m, "submitted", fields, expect=m["status"], checks=checks, now=now)
    except ConditionFailed as exc:
        r = exc.reasons
        if len(r) > 1 and r[1] == "ConditionalCheckFailed":
            raise Conflict("Only an active enrollment accepts milestone submissions") from None
        if len(r) > 2 and r[2] == "ConditionalCheckFailed":
            raise Conflict("This milestone is locked until the previous one is reviewed") from None
        raise Conflict("The milestone changed meanwhile; reload and retry") from None
    return view(m, False)


def review(p, mid: str, data, read: Mapping | None = None) -> dict:
    """submitted → reviewed | rejected, with the student's email written in the same transaction
    (the transactional outbox, issue 23 rule 4: the email exists exactly when the review does).
    A failed condition is read back before it is believed (rule 2): still submitted, it is retried.
    ``read``: items read with authentication, strongly consistent (``auth.read_with_auth``), the
    milestone and its enrollment among them."""
    from ..mail import outbox  # lazily: only the review writes an email (cold start of the other routes)

    m = _milestone(mid, read)
    new = "reviewed" if data.action == "approve" else "rejected"
    e = repo.enrollment(m["enrollment_id"], read) or {}
    for _ in range(REVIEW_ATTEMPTS):
        if m["status"] != "submitted":
            raise Conflict(f"Only a submitted milestone can be reviewed (it is {m['status']})")
        now = clock.now_iso()
        email_id, mail_ops = outbox.pending_if_addressed(
            "milestone_approved" if new == "reviewed" else "milestone_rejected", e.get("student_email"),
            {"name": e.get("student_name", ""), "milestoneTitle": m["title"], "remarks": data.remarks or "-"},
            user_id=m["user_id"])
        try:
            m = repo.change_status(m, new, {"remarks": data.remarks, "reviewed_at": now, "reviewed_by": p.user_id},
                                   expect="submitted", now=now, mail_ops=mail_ops, fresh=outbox.fresh_puts(mail_ops))
        except ConditionFailed:
            cur = repo.get(m["enrollment_id"], m["order"], consistent=True)
            if not cur or cur["status"] != "submitted":
                raise Conflict("The milestone was reviewed meanwhile") from None
            m = cur  # the condition failed yet it is still submitted: unconfirmed, retried
            continue
        outbox.announce(email_id)
        return m
    raise Contention("Could not review the milestone, please retry")


def force_status(p, mid: str, data, read: Mapping | None = None) -> tuple[dict, dict]:
    """``read``: items read with authentication, strongly consistent (``auth.read_with_auth``)."""
    before = _milestone(mid, read)
    now = clock.now_iso()
    fields: dict = {"remarks": data.remarks, "forced_by": p.user_id, "forced_at": now}
    if data.status == "reviewed":
        fields.update(reviewed_at=now, reviewed_by=p.user_id)
    try:
        after = repo.change_status(before, data.status, fields, expect=before["status"], now=now)
    except ConditionFailed:
        raise Conflict("The milestone changed meanwhile; reload and retry") from None
    return before, after


def resources(p, eid: str, read: Mapping | None = None) -> dict:
    e = _enrollment_for(p, eid, read)
    if e["user_id"] == p.user_id and e["status"] not in ("active", "completed"):
        raise Forbidden("Resources are available once the enrollment is active")
    weeks: dict[int, list] = {}
    for r in repo.resources_for_domain(e["domain_id"]):
        if r.get("is_active", True) is False:
            continue
        w = int(r.get("week") or 1)
        # files uploaded by staff: a 1-hour presigned link (signed locally, no AWS call)
        dl = repo.presigned_download(r["file_key"]) if r.get("file_key") else None
        weeks.setdefault(w, []).append({
            "id": r["id"], "title": r.get("title", ""), "description": r.get("description", ""),
            "type": r.get("resource_type") or r.get("type"), "url": r.get("url") or dl, "week": w,
            "position": r.get("position", 0), "downloadUrl": dl})
    return {"enrollmentId": e["id"], "domainId": e["domain_id"],
            "weeks": [{"week": w, "resources": sorted(items, key=lambda x: (x["position"], x["title"]))}
                      for w, items in sorted(weeks.items())]}
