"""Final-project submissions (``POST /api/enrollments/{id}/submit``) and milestone submissions.

A final-project submission lives on its enrollment (``submission_email``, ``submitted_at``,
``project_status``: ``submitted`` → ``approved`` | ``rejected``). Approving completes the enrollment
and issues the certificate through the review package's approve (every milestone must be reviewed);
then the project is marked approved. Rejecting keeps the enrollment active so the student resubmits.
"""
from __future__ import annotations

from lambdakit import clock
from lambdakit.conditions import Attr, all_of
from lambdakit.errors import Conflict, NotFound, ValidationFailed

from .. import activity
from ..learning import plan
from . import repository as repo

SUB_STATUSES = ("submitted", "approved", "rejected")
MILESTONE_STATUSES = ("pending", "submitted", "reviewed", "rejected")


def list_submissions(*, status, search, offset, limit, cursor):
    if status and status not in SUB_STATUSES:
        raise ValidationFailed(f"status must be one of {', '.join(SUB_STATUSES)}", fields={"status": "Unknown"})
    eq = {"project_status": status} if status and status != "submitted" else {}
    flt = repo.attr_filter(eq, (["student_name", "student_email", "domain_name", "submission_email"], search)
                           if search else None, exists=["submitted_at"])
    if status == "submitted":
        submitted = Attr("project_status").not_exists() | Attr("project_status").eq("submitted")
        flt = all_of([flt, submitted])
    items, nxt = repo.page("ENROLLS", "gsi2", flt=flt, offset=offset, limit=limit, cursor=cursor)
    total, exact = repo.count_query("ENROLLS", "gsi2", flt=flt)
    out = [{"id": e["id"], "enrollmentId": e["id"], "user_id": e.get("user_id"), "student_name": e.get("student_name"),
            "student_email": e.get("student_email"), "domain_name": e.get("domain_name"),
            "submission_email": e.get("submission_email"), "submitted_at": e.get("submitted_at"),
            "project_status": e.get("project_status", "submitted"), "remarks": e.get("submission_remarks"),
            "enrollment_status": e.get("status")} for e in items]
    return out, total, exact, nxt


def decide(p, eid: str, approve: bool, remarks: str) -> dict:
    admin_id = p.user_id
    e = repo.get_enrollment(eid)
    if not e or not e.get("submitted_at"):
        raise NotFound("Submission not found")
    current = e.get("project_status", "submitted")
    if current != "submitted":
        raise Conflict(f"Submission already {current}")
    if not approve and len(remarks) < 3:
        raise ValidationFailed("remarks are required when rejecting", fields={"remarks": "Required"})
    now = clock.now_iso()
    new = "approved" if approve else "rejected"
    completed = False
    if approve:
        from ..admin_review import service as review

        _, completed = review.approve(p, eid, False)  # idempotent; 409 while milestones are unreviewed
    repo.set_submission(eid, new, remarks, admin_id, now)
    activity.record(admin_id, f"submission.{'approve' if approve else 'reject'}", "submission", eid,
                    before={"project_status": current}, after={"project_status": new, "remarks": remarks})
    return {"enrollmentId": eid, "project_status": new, "remarks": remarks,
            "completed": completed or e.get("status") == "completed"}


def counter_keys() -> list[tuple[str, str]]:
    """The review queue's counters (per submission status), read with authentication (``auth.Reads``)."""
    return [repo.counter_key(f"milestones#{s}") for s in plan.SUBMISSION_STATUSES]


def milestone_submissions(*, status, enrollment_id, offset, limit, cursor, read=None):
    """The review queue. Without ``status``: every submitted, reviewed and rejected milestone, newest
    status change first (gsi3 ``MILESTONES#SUBMISSIONS``); with it, that status only (gsi1). Each item
    carries its ``status``; ``counts`` (per submission status, from counters) feed the pending badge.
    ``read``: items read with authentication (the counters, ``counter_keys``). The student and
    domain come from the milestone's copies of its enrollment's (``plan.ENROLLMENT_COPY``); only a
    milestone without them (written before they were) has its enrollment read."""
    if status and status not in MILESTONE_STATUSES:
        raise ValidationFailed(f"status must be one of {', '.join(MILESTONE_STATUSES)}", fields={"status": "Unknown"})
    flt = repo.attr_filter({"enrollment_id": enrollment_id} if enrollment_id else None)
    pk, index = (f"MILESTONES#{status}", "gsi1") if status else (plan.SUBMISSIONS_INDEX_PK, "gsi3")
    items, nxt = repo.page(pk, index, flt=flt, offset=offset, limit=limit, cursor=cursor)
    # the counters not read with authentication and the enrollments of milestones without their
    # copies: independent reads, one BatchGetItem (none when there are none)
    uncopied = [m for m in items if not all(k in m for k in plan.ENROLLMENT_COPY)]
    counts, enr = repo.counts_and_enrollments([f"milestones#{s}" for s in plan.SUBMISSION_STATUSES],
                                              [m.get("enrollment_id") for m in uncopied], read)
    counts = {s: counts.get(f"milestones#{s}", 0) for s in plan.SUBMISSION_STATUSES}
    if flt is not None:
        total, exact = repo.count_query(pk, index, flt=flt)
    elif status:
        total, exact = counts[status] if status in counts else repo.count(f"milestones#{status}"), True
    else:
        total, exact = sum(counts.values()), True
    for m in uncopied:
        e = enr.get(m.get("enrollment_id")) or {}
        for k in plan.ENROLLMENT_COPY:
            m[k] = e.get(k)
    return items, total, exact, nxt, counts
