"""``GET /api/cron/<job>`` (Bearer CRON_SECRET) and EventBridge schedule events (``{"job": "<job>"}``)
run the same code (``jobs.run``). Deployed twice (issue 33): CronApiFunction serves the routes within
the HTTP API's 29 s, CronFunction (300 s) the schedules and invoke-only tasks."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import Unauthorized
from lambdakit.http import header
from lambdakit.observability import worker_entry
from lambdakit.openapi import doc
from lambdakit.security import constant_time_equals

from ..http import build_app, lambda_entry, logger, ok
from . import jobs
from . import repository as repo

router = APIGatewayHttpRouter()


def _authorize() -> None:
    value = header(router, "authorization") or ""
    scheme, _, token = value.partition(" ")
    if repo.prefetch_secret():
        # a cold Lambda process: the secret's round trip overlaps creating the DynamoDB client
        repo.warm()
    secret = repo.cron_secret()
    if scheme.lower() != "bearer" or not secret or not constant_time_equals(token.strip(), secret):
        raise Unauthorized("Unauthorized")


def _route(job: str):
    def handler():
        _authorize()
        return ok(jobs.run(job))

    handler.__name__ = "cron_" + job.replace("-", "_")
    return handler


_SUMMARIES = {
    "process-emails": "Process the email queue (daily 06:00 UTC)",
    "inactive-students": "Re-engagement emails to inactive students (daily 09:00 UTC)",
    "deadline-reminders": "Deadline reminders (daily 08:00 UTC); response {ok, sent, skipped}",
    "job-alerts": "Weekly domain-matched job digest (Monday 09:00 UTC)",
}
for _job in jobs.JOBS:
    router.get(f"/api/cron/{_job}", summary=_SUMMARIES[_job],
               description="Requires Authorization: Bearer <CRON_SECRET>; idempotent per UTC day.",
               openapi_extensions=doc(response="internships.cron.models:CronResult"))(_route(_job))

app = build_app(router)
_http = lambda_entry(app)


def _index_milestone_submissions() -> dict:
    from ..learning import repository as milestones

    return {"ok": True, **milestones.index_submissions()}


# invoke-only maintenance tasks: {"task": "<name>"} (docs/internships-admin.md)
_TASKS = {"index-milestone-submissions": _index_milestone_submissions}


@worker_entry(logger)
def lambda_handler(event: dict, context) -> dict:
    if isinstance(event, dict) and "requestContext" in event and "routeKey" in event:
        return _http(event, context)
    if isinstance(event, dict) and event.get("task") in _TASKS:
        return _TASKS[event["task"]]()
    job = (event or {}).get("job") if isinstance(event, dict) else None
    if job not in jobs.JOBS:
        detail = (event or {}).get("detail") if isinstance(event, dict) else None
        job = detail.get("job") if isinstance(detail, dict) else None
    if job not in jobs.JOBS:
        logger.error("unknown scheduled job")
        return {"ok": False, "error": "unknown job"}
    result = jobs.run(job)
    logger.info("scheduled job done", extra={"job": job, "result": result})
    return result
