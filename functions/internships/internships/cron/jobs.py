"""The scheduled jobs. EventBridge schedules and ``GET /api/cron/*`` both call ``run(job)``.

Every email a job sends is queued with a dedupe key that contains the job, the
recipient/subject entity and the UTC day (or ISO week for the weekly digest), so
running a job twice on the same day queues nothing twice: the second run reports
those as ``skipped``.
"""
from __future__ import annotations

from lambdakit import clock

from ..mail import service as mail
from . import repository as repo

JOBS = ("process-emails", "inactive-students", "deadline-reminders", "job-alerts")


def process_emails() -> dict:
    from ..announcements import service as announcements
    from ..mail.outbox import enqueue_ex

    for ann_id in announcements.pending_fanouts():  # safety net for lost fan-out messages / scheduled ones
        announcements.fan_out(ann_id, enqueue_ex)
    r = mail.sweep()
    return {"ok": True, "sent": r["sent"], "skipped": r["skipped"], "failed": r["failed"], "retried": r["retry"]}


def inactive_students() -> dict:
    from ..engagement import reminders

    return {"ok": True, **reminders.inactive_students()}


def deadline_reminders() -> dict:
    from ..engagement import reminders

    return {"ok": True, **reminders.deadline_reminders()}


def job_alerts() -> dict:
    from ..jobs import alerts

    return {"ok": True, **alerts.weekly_alerts()}


_RUNNERS = {"process-emails": process_emails, "inactive-students": inactive_students,
            "deadline-reminders": deadline_reminders, "job-alerts": job_alerts}


def run(job: str) -> dict:
    result = _RUNNERS[job]()
    repo.record_run(job, clock.today(), result)
    return result
