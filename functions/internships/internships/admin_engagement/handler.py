"""AdminEngagementFunction: admin announcements, jobs, email queue, email stats, test email."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import BadRequest, NotFound
from lambdakit.http import file_response, json_object, parse_model, query
from lambdakit.openapi import doc

from .. import activity
from ..announcements import service as announcements
from ..auth import Reads, principal, read_with_auth, require_permission
from ..http import build_app, lambda_entry, ok

router = APIGatewayHttpRouter()
_M = "internships.admin_engagement.models:"
# typed as the router's middleware list (a list is invariant: list[_RequirePermission] would not do)
ANN: list[Callable[..., Any]] = [require_permission("manage_announcements")]
JOBS: list[Callable[..., Any]] = [require_permission("manage_jobs")]
EMAILS: list[Callable[..., Any]] = [require_permission("manage_emails")]


# ---------------------------------------------------------------- announcements
# the list's total (a counter item) is read with the caller's user item: one round trip fewer
ANN_LIST: list[Callable[..., Any]] = [
    require_permission("manage_announcements", reads=Reads(lambda app: [announcements.TOTAL_KEY]))]


@router.get("/api/admin/announcements", middlewares=ANN_LIST, summary="List announcements (newest first)",
            openapi_extensions=doc(query=_M + "PageQuery", response="internships.announcements.models:Announcement",
                                   list_key="announcements", paginated=True),
            description="Query page, limit (default 20, max 100); response total and pages.")
def list_announcements():
    return ok(announcements.admin_list(query(router, "page"), query(router, "limit"), read_with_auth(router)))


@router.post("/api/admin/announcements", middlewares=ANN, summary="Create an announcement",
             openapi_extensions=doc(body="internships.announcements.models:AnnouncementCreate", response=_M +
                                    "AnnouncementOut", status=201),
             description="Spec snake_case shape; allowed values validated (400 otherwise). send_email queues one "
                         "email per audience member when the announcement is live.")
def create_announcement():
    from ..announcements.models import AnnouncementCreate

    body = parse_model(AnnouncementCreate, json_object(router))
    a = announcements.create(principal(router).user_id, body)
    return ok({"success": True, "announcement": a}, status=201)


@router.get("/api/admin/announcements/<id>",
            openapi_extensions=doc(response=_M + "AnnouncementOut"),
            middlewares=ANN, summary="One announcement")
def get_announcement(id: str):  # noqa: A002
    return ok({"success": True, "announcement": announcements.get(id)})


@router.put("/api/admin/announcements/<id>",
            openapi_extensions=doc(body="internships.announcements.models:AnnouncementUpdate", response=_M +
                                   "AnnouncementOut", errors=(409,)),
            middlewares=ANN, summary="Update an announcement (partial)")
def update_announcement(id: str):  # noqa: A002
    from ..announcements.models import AnnouncementUpdate

    body = parse_model(AnnouncementUpdate, json_object(router))
    return ok({"success": True, "announcement": announcements.update(principal(router).user_id, id, body)})


@router.delete("/api/admin/announcements/<id>",
               openapi_extensions=doc(response=_M + "AnnouncementDeleted"),
               middlewares=ANN, summary="Delete an announcement")
def delete_announcement(id: str):  # noqa: A002
    return ok(announcements.delete(principal(router).user_id, id))


# ---------------------------------------------------------------- jobs
@router.get("/api/admin/jobs", middlewares=JOBS, summary="List aggregated jobs (newest first)",
            openapi_extensions=doc(query=_M + "PageQuery", response=_M + "AdminJobsPage"),
            description="Query page, limit; response total, pages and per-source counts.")
def list_jobs():
    from ..jobs import service as jobs  # lazily: only the jobs routes

    return ok(jobs.admin_list(query(router, "page"), query(router, "limit")))


@router.delete("/api/admin/jobs", middlewares=JOBS, summary="Delete jobs",
               openapi_extensions=doc(query=_M + "JobsDeleteQuery", response=_M + "JobsDeleted"),
               description="Query or body: jobId (one), olderThanDays (bounds: the query's schema), or all=true; bulk deletes remove up to "
                           "200 oldest per call and answer more=true when more remain.")
def delete_jobs():
    from ..jobs import service as jobs  # lazily: only the jobs routes
    from .models import MAX_OLDER_THAN_DAYS

    body = json_object(router, required=False)
    job_id = body.get("jobId") or query(router, "jobId")
    older = body.get("olderThanDays", query(router, "olderThanDays"))
    try:
        older_days = None if older is None or older == "" else int(older)
    except (TypeError, ValueError):
        raise BadRequest("olderThanDays must be an integer") from None
    if older_days is not None and not 0 <= older_days <= MAX_OLDER_THAN_DAYS:
        raise BadRequest(f"olderThanDays must be between 0 and {MAX_OLDER_THAN_DAYS}")
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


def _fetch_task(kind: str):
    """Fetch inline while the time budget allows; the rest goes on as a task (``internships.tasks``):
    202 with its status URL (``GET /api/admin/tasks/{taskId}``)."""
    from ..jobs import service as jobs  # lazily: only the jobs routes
    from ..tasks import service as tasks

    result, task_id = tasks.run_or_defer("admin", kind, jobs.TASK_STEPS[kind],
                                         tasks.http_budget(router.lambda_context))
    if task_id is None:
        return _fetch_result(kind.removeprefix("jobs-"), result)
    me = principal(router)
    activity.record(me.user_id, f"jobs.{kind.removeprefix('jobs-')}", "job", kind.removeprefix("jobs-"),
                    after={"task": task_id})
    url = f"/api/admin/tasks/{task_id}"
    return ok({"success": True, **result, "status": "running", "taskId": task_id, "statusUrl": url}, status=202,
              headers={"Location": url})


_ASYNC = ("Fetches inline while the request's time budget lasts; when sources remain it answers 202 with "
          "taskId, statusUrl (also Location) and the counts so far, and the worker fetches the rest.")


@router.post("/api/admin/jobs/fetch-all",
             openapi_extensions=doc(response=_M + "FetchOut", also={202: _M + "FetchAccepted"}),
             middlewares=JOBS, summary="Fetch from the search API and all RSS feeds", description=_ASYNC)
def fetch_all():
    return _fetch_task("jobs-fetch-all")


@router.post("/api/admin/jobs/fetch-rss",
             openapi_extensions=doc(response=_M + "FetchOut", also={202: _M + "FetchAccepted"}),
             middlewares=JOBS, summary="Fetch from the configured RSS/Atom feeds", description=_ASYNC)
def fetch_rss():
    return _fetch_task("jobs-fetch-rss")


@router.get("/api/admin/tasks/<taskId>", middlewares=JOBS, summary="Status of a fetch that went on asynchronously",
            openapi_extensions=doc(response=_M + "JobsTaskStatus", errors=(404,)),
            description="status running, done or failed; added, updated, sources, errors so far; finishedAt. "
                        "Records expire 7 days after their last change.")
def admin_task(taskId: str):  # noqa: N803 - the path parameter's name
    from ..tasks import service as tasks

    found = tasks.get(taskId, "admin")
    if found is None:
        raise NotFound("Task not found")
    return ok(found)


@router.post("/api/admin/jobs/refresh", middlewares=JOBS, summary="Refresh one search query",
             openapi_extensions=doc(body=_M + "JobsRefresh", response=_M + "FetchOut"),
             description="Body {query}, or the query string ?query= (the spec's request is 'query (string)'; "
                         "the body wins when both are sent); 400 without it or when no search API is configured.")
def refresh_jobs():
    from ..jobs import service as jobs  # lazily: only the jobs routes
    from .models import JobsRefresh

    data = json_object(router, required=False)
    if "query" not in data and query(router, "query") is not None:
        data = {**data, "query": query(router, "query")}
    body = parse_model(JobsRefresh, data)
    return _fetch_result("refresh", jobs.refresh(body.query))


# ---------------------------------------------------------------- email
@router.get("/api/admin/email-queue", middlewares=EMAILS, summary="Email queue",
            openapi_extensions=doc(query=_M + "EmailQueueQuery", response=_M + "QueuedEmail", list_key="emails",
                                   paginated=True),
            description="Query status (pending, sending, sent, failed, cancelled), templateType, startDate, endDate "
                        "(creation day, inclusive), page, limit. Newest first; total/pages from counters.")
def email_queue():
    from ..mail import service as mail

    return ok(mail.list_queue(status=query(router, "status"), template=query(router, "templateType"),
                              start_date=query(router, "startDate"), end_date=query(router, "endDate"),
                              page=query(router, "page"), limit=query(router, "limit")))


@router.get("/api/admin/email-queue/<email_id>/raw", middlewares=EMAILS,
            summary="The exact MIME bytes of one email (message/rfc822)",
            openapi_extensions=doc(content_type="message/rfc822"),
            description="The message as the recipient's mailbox gets it: the bytes the SES provider sends "
                        "(SendEmail Content.Raw), built by the same code, kept by the sandbox provider for 30 days. "
                        "404 when none are kept (sent through SES, not sent yet, or expired).")
def email_raw(email_id: str):
    from ..mail import repository as mail_repo

    raw = mail_repo.sandbox_raw(email_id)
    if raw is None:
        raise NotFound("No stored message for this email")
    return file_response(raw.decode("ascii", "replace"), "message/rfc822", f"{email_id}.eml", inline=True)


@router.post("/api/admin/email-queue/retry",
             openapi_extensions=doc(body=_M + "EmailAction", response=_M + "EmailOut", errors=(409,)),
             middlewares=EMAILS, summary="Retry a failed email (failed → pending)")
def retry_email():
    from ..mail import service as mail
    from .models import EmailAction

    body = parse_model(EmailAction, json_object(router))
    email = mail.retry(body.emailId)
    activity.record(principal(router).user_id, "email.retry", "email", body.emailId,
                    before={"status": "failed"}, after={"status": "pending"})
    return ok({"success": True, "email": email})


@router.post("/api/admin/email-queue/cancel",
             openapi_extensions=doc(body=_M + "EmailAction", response=_M + "EmailOut", errors=(409,)),
             middlewares=EMAILS, summary="Cancel a pending email")
def cancel_email():
    from ..mail import service as mail
    from .models import EmailAction

    body = parse_model(EmailAction, json_object(router))
    email = mail.cancel(body.emailId)
    activity.record(principal(router).user_id, "email.cancel", "email", body.emailId,
                    before={"status": "pending"}, after={"status": "cancelled"})
    return ok({"success": True, "email": email})


@router.get("/api/admin/email-stats", middlewares=EMAILS, summary="Email usage",
            openapi_extensions=doc(response=_M + "EmailStats"),
            description="Totals by status, opens, delivery and open rates, per template, last 7 days.")
def email_stats():
    from ..mail import service as mail

    return ok(mail.stats())


@router.post("/api/admin/test-email", middlewares=EMAILS, summary="Queue a test email",
             openapi_extensions=doc(body=_M + "TestEmail", response=_M + "TestEmailOut"),
             description="Body {template, to?}: one of the twelve template kinds; to defaults to the caller.")
def test_email():
    from ..mail import service as mail
    from .models import TestEmail

    body = parse_model(TestEmail, json_object(router))
    me = principal(router)
    result = mail.send_test(body.template, body.to or me.email)
    activity.record(me.user_id, "email.test", "email", result["emailId"], after={"template": body.template})
    return ok(result)


app = build_app(router)
lambda_handler = lambda_entry(app)
