"""EngagementFunction: student announcements, notifications and jobs (signed-in users)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object, parse_model, query
from lambdakit.openapi import doc

from ..announcements import service as announcements
from ..auth import principal, require_user
from ..http import build_app, lambda_entry, ok

router = APIGatewayHttpRouter()
AUTH = [require_user]


@router.get("/api/announcements", middlewares=AUTH, summary="Active announcements for the caller",
            description="Live announcements whose target_audience matches the caller, highest priority first, "
                        "each with isRead; plus unreadCount.",
            openapi_extensions=doc(response="internships.announcements.models:AnnouncementFeed"))
def list_announcements():
    me = principal(router)
    return ok(announcements.list_for_user(me.user_id, me.role))


@router.get("/api/announcements/unread-count", middlewares=AUTH, summary="Number of unread visible announcements",
            openapi_extensions=doc(response="internships.announcements.models:UnreadCount"))
def unread_count():
    me = principal(router)
    return ok({"success": True, "count": announcements.unread_count(me.user_id, me.role)})


@router.post("/api/announcements/<id>/read", middlewares=AUTH, summary="Mark one announcement read",
             description="Idempotent; 404 when the announcement is unknown or not visible to the caller.",
             openapi_extensions=doc(response="internships.announcements.models:ReadResult"))
def read_announcement(id: str):  # noqa: A002
    me = principal(router)
    return ok(announcements.mark_read(me.user_id, me.role, id))


@router.get("/api/notifications", middlewares=AUTH, summary="Notification feed (max 20, newest first)",
            description="Unread announcements, enrollment status changes and milestone reviews.",
            openapi_extensions=doc(response="internships.notifications.models:NotificationFeed"))
def get_notifications():
    from ..notifications import service as notifications

    me = principal(router)
    return ok(notifications.feed(me.user_id, me.role))


@router.post("/api/notifications", middlewares=AUTH, summary="Mark a notification read",
             description="Body {announcementId} (spec) or {notificationId} (an id from the caller's own feed: "
                         "404 for any other; at most INTERNSHIPS_NOTIFICATION_MARKS_PER_USER marks, 409 past it).",
             openapi_extensions=doc(body="internships.announcements.models:MarkRead",
                                    response="internships.announcements.models:ReadResult", errors=(404, 409)))
def post_notifications():
    from ..announcements.models import MarkRead
    from ..notifications import service as notifications

    me = principal(router)
    body = parse_model(MarkRead, json_object(router))
    return ok(notifications.mark_read(me.user_id, me.role, body.announcementId, body.notificationId))


@router.get("/api/jobs", middlewares=AUTH, summary="Search jobs",
            description="Query keyword and/or location (at least one, else 400), page, limit (max 50). "
                        "suggestions=1&q=<text> returns title autocomplete instead.",
            openapi_extensions=doc(query="internships.jobs.models:JobsQuery",
                                   response="internships.jobs.models:JobsResponse"))
def get_jobs():
    from ..jobs import service as jobs  # lazily: only the jobs routes

    if query(router, "suggestions") in ("1", "true"):
        return ok(jobs.suggest(query(router, "q")))
    return ok(jobs.search(query(router, "keyword"), query(router, "location"), query(router, "page"),
                          query(router, "limit")))


def _job_id_from_request():
    body = json_object(router, required=False)
    return body.get("jobId") if body else query(router, "jobId")


@router.get("/api/jobs/saved", middlewares=AUTH, summary="The caller's saved jobs (newest first)",
            openapi_extensions=doc(response="internships.jobs.models:SavedJobs"))
def get_saved():
    from ..jobs import service as jobs  # lazily: only the jobs routes

    return ok(jobs.saved(principal(router).user_id))


@router.post("/api/jobs/saved", middlewares=AUTH, summary="Save a job", description="Body {jobId}; idempotent.",
             openapi_extensions=doc(body="internships.jobs.models:JobIdBody",
                                    response="internships.jobs.models:SaveResult"))
def post_saved():
    from ..jobs import service as jobs  # lazily: only the jobs routes

    return ok(jobs.save(principal(router).user_id, _job_id_from_request()))


@router.delete("/api/jobs/saved", middlewares=AUTH, summary="Unsave a job",
               description="Body {jobId} (or query jobId); 404 when it was not saved.",
               openapi_extensions=doc(query="internships.jobs.models:JobIdQuery",
                                      response="internships.jobs.models:SaveResult"))
def delete_saved():
    from ..jobs import service as jobs  # lazily: only the jobs routes

    return ok(jobs.unsave(principal(router).user_id, _job_id_from_request()))


app = build_app(router)
lambda_handler = lambda_entry(app)
