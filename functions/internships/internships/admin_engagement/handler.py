"""AdminEngagementFunction: admin announcements, jobs, email queue, email stats, test email."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import BadRequest
from lambdakit.http import json_object, parse_model, query
from lambdakit.openapi import doc

from .. import activity
from ..announcements import service as announcements
from ..announcements.models import AnnouncementCreate, AnnouncementUpdate
from ..auth import principal, require_permission
from ..http import build_app, lambda_entry, ok
from ..jobs import service as jobs
from ..mail import service as mail
from .models import EmailAction, JobsRefresh, TestEmail

router = APIGatewayHttpRouter()
ANN = [require_permission("manage_announcements")]
JOBS = [require_permission("manage_jobs")]
EMAILS = [require_permission("manage_emails")]


# ---------------------------------------------------------------- announcements
@router.get("/api/admin/announcements", middlewares=ANN, summary="List announcements (newest first)",
            description="Query page, limit (default 20, max 100); response total and pages.")
def list_announcements():
    return ok(announcements.admin_list(query(router, "page"), query(router, "limit")))


@router.post("/api/admin/announcements", middlewares=ANN, summary="Create an announcement",
             description="Spec snake_case shape; allowed values validated (400 otherwise). send_email queues one "
                         "email per audience member when the announcement is live.",
             openapi_extensions=doc(body="internships.announcements.models:AnnouncementCreate",
                                    response="internships.announcements.models:Announcement", status=201,
                                    errors=(400,)))
def create_announcement():
    body = parse_model(AnnouncementCreate, json_object(router))
    a = announcements.create(principal(router).user_id, body)
    return ok({"success": True, "announcement": a}, status=201)


@router.get("/api/admin/announcements/<id>", middlewares=ANN, summary="One announcement",
            openapi_extensions=doc(response="internships.announcements.models:Announcement", errors=(404,)))
def get_announcement(id: str):  # noqa: A002
    return ok({"success": True, "announcement": announcements.get(id)})


@router.put("/api/admin/announcements/<id>", middlewares=ANN, summary="Update an announcement (partial)",
            openapi_extensions=doc(body="internships.announcements.models:AnnouncementUpdate",
                                   response="internships.announcements.models:Announcement", errors=(400, 404, 409)))
def update_announcement(id: str):  # noqa: A002
    body = parse_model(AnnouncementUpdate, json_object(router))
    return ok({"success": True, "announcement": announcements.update(principal(router).user_id, id, body)})


@router.delete("/api/admin/announcements/<id>", middlewares=ANN, summary="Delete an announcement",
               openapi_extensions=doc(errors=(404,)))
def delete_announcement(id: str):  # noqa: A002
    return ok(announcements.delete(principal(router).user_id, id))


# ---------------------------------------------------------------- jobs
@router.get("/api/admin/jobs", middlewares=JOBS, summary="List aggregated jobs (newest first)",
            description="Query page, limit; response total, pages and per-source counts.")
def list_jobs():
    return ok(jobs.admin_list(query(router, "page"), query(router, "limit")))


@router.delete("/api/admin/jobs", middlewares=JOBS, summary="Delete jobs",
               description="Query or body: jobId (one), olderThanDays (N), or all=true; bulk deletes remove up to "
                           "200 oldest per call and answer more=true when more remain.",
               openapi_extensions=doc(errors=(400, 404)))
def delete_jobs():
    body = json_object(router, required=False)
    job_id = body.get("jobId") or query(router, "jobId")
    older = body.get("olderThanDays", query(router, "olderThanDays"))
    try:
        older_days = int(older) if older not in (None, "") else None
    except (TypeError, ValueError):
        raise BadRequest("olderThanDays must be an integer") from None
    if older_days is not None and older_days < 0:
        raise BadRequest("olderThanDays must be at least 0")
    all_flag = body.get("all") is True or query(router, "all") in ("1", "true")
    me = principal(router)
    result = jobs.admin_delete(job_id, older_days, all_flag)
    activity.record(me.user_id, "jobs.delete", "job", job_id or ("all" if all_flag else f"older:{older_days}"),
                    after={"deleted": result["deleted"]})
    return ok(result)


def _fetch_result(kind: str, result: dict):
    me = principal(router)
    activity.record(me.user_id, f"jobs.{kind}", "job", kind,
                    after={k: result[k] for k in ("added", "updated", "sources")})
    return ok({"success": True, **result})


@router.post("/api/admin/jobs/fetch-all", middlewares=JOBS, summary="Fetch from the search API and all RSS feeds")
def fetch_all():
    return _fetch_result("fetch-all", jobs.fetch_all())


@router.post("/api/admin/jobs/fetch-rss", middlewares=JOBS, summary="Fetch from the configured RSS/Atom feeds")
def fetch_rss():
    return _fetch_result("fetch-rss", jobs.fetch_rss())


@router.post("/api/admin/jobs/refresh", middlewares=JOBS, summary="Refresh one search query",
             description="Body {query}; 400 without it or when no search API is configured.",
             openapi_extensions=doc(body="internships.admin_engagement.models:JobsRefresh", errors=(400,)))
def refresh_jobs():
    body = parse_model(JobsRefresh, json_object(router))
    return _fetch_result("refresh", jobs.refresh(body.query))


# ---------------------------------------------------------------- email
@router.get("/api/admin/email-queue", middlewares=EMAILS, summary="Email queue",
            description="Query status (pending, sending, sent, failed, cancelled), templateType, startDate, endDate "
                        "(creation day, inclusive), page, limit. Newest first; total/pages from counters.",
            openapi_extensions=doc(errors=(400,)))
def email_queue():
    return ok(mail.list_queue(status=query(router, "status"), template=query(router, "templateType"),
                              start_date=query(router, "startDate"), end_date=query(router, "endDate"),
                              page=query(router, "page"), limit=query(router, "limit")))


@router.post("/api/admin/email-queue/retry", middlewares=EMAILS, summary="Retry a failed email (failed → pending)",
             openapi_extensions=doc(body="internships.admin_engagement.models:EmailAction", errors=(400, 404, 409)))
def retry_email():
    body = parse_model(EmailAction, json_object(router))
    email = mail.retry(body.emailId)
    activity.record(principal(router).user_id, "email.retry", "email", body.emailId,
                    before={"status": "failed"}, after={"status": "pending"})
    return ok({"success": True, "email": email})


@router.post("/api/admin/email-queue/cancel", middlewares=EMAILS, summary="Cancel a pending email",
             openapi_extensions=doc(body="internships.admin_engagement.models:EmailAction", errors=(400, 404, 409)))
def cancel_email():
    body = parse_model(EmailAction, json_object(router))
    email = mail.cancel(body.emailId)
    activity.record(principal(router).user_id, "email.cancel", "email", body.emailId,
                    before={"status": "pending"}, after={"status": "cancelled"})
    return ok({"success": True, "email": email})


@router.get("/api/admin/email-stats", middlewares=EMAILS, summary="Email usage",
            description="Totals by status, opens, delivery and open rates, per template, last 7 days.")
def email_stats():
    return ok(mail.stats())


@router.post("/api/admin/test-email", middlewares=EMAILS, summary="Queue a test email",
             description="Body {template, to?}: one of the twelve template kinds; to defaults to the caller.",
             openapi_extensions=doc(body="internships.admin_engagement.models:TestEmail", errors=(400,)))
def test_email():
    body = parse_model(TestEmail, json_object(router))
    me = principal(router)
    result = mail.send_test(body.template, body.to or me.email)
    activity.record(me.user_id, "email.test", "email", result["emailId"], after={"template": body.template})
    return ok(result)


app = build_app(router)
lambda_handler = lambda_entry(app)
