"""The scheduled jobs. EventBridge schedules and ``GET /api/cron/*`` both call ``run(job)``.

Every email a job sends is queued with a dedupe key that contains the job, the
recipient/subject entity and the UTC day (or ISO week for the weekly digest), so
running a job twice on the same day queues nothing twice: the second run reports
those as ``skipped``.
"""
from __future__ import annotations

import logging

from lambdakit import clock, occupancy

from ..mail import service as mail
from . import repository as repo

logger = logging.getLogger("internships.cron")

JOBS = ("process-emails", "inactive-students", "deadline-reminders", "job-alerts")
#: The period of the ``process-emails`` schedule (template: ``ProcessEmailsSweep``, ``rate(10 minutes)``).
SWEEP_PERIOD_MINUTES = 10

Marks = dict[tuple[str, str], dict]


def _minute(now: float | None) -> int:
    return int((clock.now_ts() if now is None else now) // 60)


def full_sweep_due(now: float | None = None) -> bool:
    """This run queries the live announcements whatever their fan-out marker says (the occupancy
    markers' net, ``occupancy.FULL_SWEEP_MINUTES``): the run in the first ``SWEEP_PERIOD_MINUTES`` of
    each half hour (with the 10-minute schedule one run in three, whatever minute it started on)."""
    return _minute(now) % occupancy.FULL_SWEEP_MINUTES < SWEEP_PERIOD_MINUTES


def counters_check_due(now: float | None = None) -> bool:
    """This run queries the pending and sending emails whatever the counters say: the run in the first
    ``SWEEP_PERIOD_MINUTES`` of the UTC day. The counters move in the transaction of every status
    change, so they cannot miss an email the service wrote; this daily net is for one changed
    outside it (a hand edit, a partial restore), and reports what it finds (``mail.sweep``)."""
    return _minute(now) % 1440 < SWEEP_PERIOD_MINUTES


def _sweep_reads() -> tuple[dict | None, Marks, bool]:
    """The email counters (``mail.COUNTERS_KEY``) and the fan-out marker (``announcements.FANOUT_MARK``)
    in one consistent BatchGetItem: ``(counters or {}, markers, every email partition)``. On a full
    run (``full_sweep_due``) the marker reads as set whatever it is (``occupancy.with_every_partition``);
    when the read fails, every partition is queried and no marker cleared (``(None, unread, True)``)."""
    from ..announcements.repository import FANOUT_MARK

    keys = [mail.COUNTERS_KEY, FANOUT_MARK]
    try:
        found = repo.read_consistent(keys)
    except Exception:  # noqa: BLE001 - query every partition rather than none
        logger.exception("sweep counters and markers not read; every partition is queried")
        return None, occupancy.unread([FANOUT_MARK]), True
    marks = {k: v for k, v in found.items() if k == FANOUT_MARK}
    if full_sweep_due():
        marks = occupancy.with_every_partition([FANOUT_MARK], marks)
    return found.get(mail.COUNTERS_KEY, {}), marks, counters_check_due()


def process_emails() -> dict:
    """The announcement fan-outs still to do (the net for lost fan-out messages, and the scheduled
    ones), then the email sweep (``mail.sweep``). An idle run reads one BatchGetItem: it queries the
    announcements only when their fan-out marker is set (and one run in three), and the pending and
    sending emails only when the counters count some (and once a day; ``_sweep_reads``)."""
    counters, marks, every_email_partition = _sweep_reads()
    queued = 0
    if marks:  # the fan-out marker is set (or this run is the net): the announcements are queried
        from ..announcements import service as announcements
        from ..mail.outbox import enqueue_ex

        for ann_id in announcements.pending_fanouts(marks):
            queued += announcements.fan_out(ann_id, enqueue_ex)
    r = mail.sweep(totals=counters, full=every_email_partition, queued=queued)  # the fan-outs' emails are swept as before
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
