"""``GET /api/cron/<job>`` (Bearer CRON_SECRET) and EventBridge schedule events (``{"job": "<job>"}``)
run the same code (``jobs.run``). Deployed twice (issue 33): CronApiFunction serves the routes within
the HTTP API's 29 s, CronFunction (300 s) the schedules and invoke-only tasks."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import NotFound, Unauthorized
from lambdakit.http import header
from lambdakit.observability import worker_entry
from lambdakit.openapi import doc
from lambdakit.security import constant_time_equals

from ..http import build_app, lambda_entry, logger, ok
from ..tasks import service as tasks
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
        result, task_id = jobs.start(job, tasks.http_budget(router.lambda_context))
        if task_id is None:
            return ok(result)
        url = f"/api/cron/tasks/{task_id}"
        return ok({**result, "status": "running", "taskId": task_id, "statusUrl": url}, status=202,
                  headers={"Location": url})

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
               description="Requires Authorization: Bearer <CRON_SECRET>; idempotent per UTC day. Runs inline while the "
                           "request's time budget lasts (the spec's body); otherwise 202 with taskId, statusUrl "
                           "(also Location) and the counts so far, and the worker finishes the run.",
               openapi_extensions=doc(response="internships.cron.models:CronResult",
                                          also={202: "internships.cron.models:CronAccepted"}))(_route(_job))

@router.get("/api/cron/tasks/<taskId>", summary="Status of a cron run that went on asynchronously",
            description="Requires Authorization: Bearer <CRON_SECRET>. A cron route that could not finish within "
                        "its time budget answers 202 with this URL (Location); status running, done or failed, the "
                        "counts so far and finishedAt. Records expire 7 days after their last change.",
            openapi_extensions=doc(response="internships.cron.models:CronTaskStatus", errors=(404,)))
def cron_task(taskId: str):  # noqa: N803 - the path parameter's name
    _authorize()
    found = tasks.get(taskId, "cron")
    if found is None:
        raise NotFound("Task not found")
    return ok(found)


app = build_app(router)
_http = lambda_entry(app)


def _index_milestone_submissions() -> dict:
    from ..learning import repository as milestones

    return {"ok": True, **milestones.index_submissions()}


# invoke-only maintenance tasks: {"task": "<name>"} (docs/internships-admin.md)
_TASKS = {"index-milestone-submissions": _index_milestone_submissions}


def _task_steps() -> dict:
    from ..jobs import service as job_postings

    return {**jobs.STEPS, **job_postings.TASK_STEPS}


def _record_cron_run(task: dict, result: dict) -> None:
    """A cron job finished by its task: its run is recorded like an inline one (``CRONRUN#<job>``)."""
    if task.get("origin") == "cron" and task.get("kind") in jobs.JOBS:
        repo.record_run(str(task["kind"]), str(task.get("created_at") or "")[:10], {"ok": True, **result})


def _work(event: dict, context) -> dict:
    """The tasks queue (BatchSize 1): resume each task where its record says; a message whose run
    failed is reported (``batchItemFailures``) and redelivered, up to the DLQ."""
    import json

    failures = []
    more = tasks.worker_budget(context)
    for record in event["Records"]:
        try:
            task_id = json.loads(record.get("body") or "{}")["taskId"]
            outcome = tasks.resume(str(task_id), _task_steps(), more, on_done=_record_cron_run)
            logger.info("task run", extra={"task": task_id, "outcome": outcome})
        except Exception:  # noqa: BLE001 - redelivered; the record's cursor is where it resumes
            logger.exception("task run failed")
            failures.append({"itemIdentifier": record.get("messageId")})
    return {"batchItemFailures": failures}


@worker_entry(logger)
def lambda_handler(event: dict, context) -> dict:
    if isinstance(event, dict) and "requestContext" in event and "routeKey" in event:
        return _http(event, context)
    if isinstance(event, dict) and isinstance(event.get("Records"), list):
        return _work(event, context)
    if isinstance(event, dict) and event.get("task") in _TASKS:
        return _TASKS[event["task"]]()
    job = (event or {}).get("job") if isinstance(event, dict) else None
    if job not in jobs.JOBS:
        detail = (event or {}).get("detail") if isinstance(event, dict) else None
        job = detail.get("job") if isinstance(detail, dict) else None
    if job not in jobs.JOBS:
        logger.error("unknown scheduled job")
        return {"ok": False, "error": "unknown job"}
    result, task_id = jobs.start(job, tasks.worker_budget(context))
    if task_id is not None:
        result = {**result, "status": "running", "taskId": task_id}
    logger.info("scheduled job done", extra={"job": job, "result": result})
    return result
