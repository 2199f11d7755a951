"""Milestone review (permission review_milestones), forced milestone status (admin, super_admin) and
enrollment approval (permission manage_enrollments), each recorded in the activity log.

Two transactions, not one (issue #21 looked at merging them): the change, then its activity-log
entry (``activity.record``). Merged, the failures would not stay the same: today a committed change
is answered 200 whatever happens to its log entry (logged, ``activity.record``), while in one
transaction the log's writes - the entry and ``COUNTER#ACTLOG`` counters that every admin
mutation of the service increments (contention, throttling) - would cancel the change, and keeping
today's answer would take a second attempt of the change alone on any such failure (a change that
today fails once would then succeed, and a merged commit whose answer was lost would be logged
twice). One round trip is not worth a different failure behaviour."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object, parse_model
from lambdakit.openapi import doc

from .. import activity
from ..auth import Reads, principal, read_with_auth, require_permission, require_roles, route_arg
from ..http import build_app, lambda_entry, ok
from ..learning import repository as milestones_repo
from ..learning import service as milestones

router = APIGatewayHttpRouter()
_M = "internships.admin_review.models:"
# the milestone a route changes is read (strongly consistent, as the route reads it) with the
# caller's user item: one round trip fewer
MILESTONE = Reads(lambda app: [k] if (k := milestones_repo.milestone_key(route_arg(app, "id"))) else [],
                  consistent=True)


# the review also reads the milestone's enrollment (its e-mail goes to the student), both known from the path
MILESTONE_AND_ENROLLMENT = Reads(lambda app: milestones_repo.milestone_and_enrollment_keys(route_arg(app, "id")),
                                 consistent=True)


@router.post("/api/admin/milestones/<id>/review", summary="Approve or reject a submitted milestone",
             openapi_extensions=doc(body="internships.learning.models:ReviewMilestone", response=_M + "MilestoneOut",
                                    errors=(409,)),
             middlewares=[require_permission("review_milestones", reads=MILESTONE_AND_ENROLLMENT)],
             description="{remarks, action: approve (default) | reject}: submitted → reviewed | rejected; "
                         "409 when the milestone is not submitted.")
def review(id: str):  # noqa: A002
    from ..learning.models import ReviewMilestone

    p = principal(router)
    data = parse_model(ReviewMilestone, json_object(router, required=False))
    m = milestones.review(p, id, data, read_with_auth(router))
    activity.record(p.user_id, f"milestone_{data.action}", "milestone", id, after={"status": m["status"],
                                                                                  "remarks": data.remarks})
    return ok({"success": True, "message": f"Milestone {m['status']}", "milestone": milestones.view(m, False)})


@router.post("/api/admin/milestones/<id>/force-status", summary="Set any milestone status",
             openapi_extensions=doc(body="internships.learning.models:ForceStatus", response=_M + "MilestoneOut",
                                    errors=(409,)),
             middlewares=[require_roles("admin", "super_admin", reads=MILESTONE)])
def force_status(id: str):  # noqa: A002
    from ..learning.models import ForceStatus

    p = principal(router)
    before, after = milestones.force_status(p, id, parse_model(ForceStatus, json_object(router)),
                                            read_with_auth(router))
    activity.record(p.user_id, "milestone_force_status", "milestone", id,
                    before={"status": before["status"]}, after={"status": after["status"],
                                                                "remarks": after.get("remarks")})
    return ok({"success": True, "milestone": milestones.view(after, False)})


@router.post("/api/admin/enrollments/<id>/approve", summary="Complete an enrollment and issue its certificate",
             openapi_extensions=doc(body=_M + "ApproveEnrollment", response=_M + "ApproveOut", errors=(409,)),
             middlewares=[require_permission("manage_enrollments")],
             description="Every milestone must be reviewed and the enrollment active, unless {force: true}. "
                         "Idempotent for a completed enrollment.")
def approve(id: str):  # noqa: A002
    from . import service  # lazily: certificates and invoices only this route needs
    from .models import ApproveEnrollment

    p = principal(router)
    data = parse_model(ApproveEnrollment, json_object(router, required=False))
    cert, created = service.approve(p, id, data.force)
    if created:
        activity.record(p.user_id, "approve", "enrollment", id, after={"status": "completed",
                                                                       "certificateId": cert["certificateId"],
                                                                       "force": data.force})
    return ok({"success": True, "message": "Enrollment completed", "certificateId": cert["certificateId"],
               "certificate": cert})


app = build_app(router)
lambda_handler = lambda_entry(app)
