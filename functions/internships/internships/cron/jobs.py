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
from ..settings import settings
from ..tasks import service as tasks
from ..tasks.service import More, Step
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


#: Emails one sweep step processes before the time budget is checked again.
SWEEP_CHUNK = 25


def process_emails() -> dict:
    return run_steps(process_emails_step)


def process_emails_step(state: dict, more: More) -> tuple[dict, dict | None]:
    """The announcement fan-outs still to do (the net for lost fan-out messages, and the scheduled
    ones), then the email sweep (``mail.sweep``) in chunks of ``SWEEP_CHUNK`` while ``more()``, up to
    ``email_sweep_limit`` in all. An idle run reads one BatchGetItem: it queries the announcements
    only when their fan-out marker is set (and one run in three), and the pending and sending emails
    only when the counters count some (and once a day; ``_sweep_reads``). A resumed step
    (``{"swept": n}``) queries both partitions (each email is claimed under a lease: never sent twice)."""
    if "swept" in state:
        counters, every, queued = None, True, 0
        swept = int(state["swept"])
    else:
        counters, marks, every = _sweep_reads()
        queued = swept = 0
        if marks:  # the fan-out marker is set (or this run is the net): the announcements are queried
            from ..announcements import service as announcements
            from ..mail.outbox import enqueue_ex

            for ann_id in announcements.pending_fanouts(marks):
                queued += announcements.fan_out(ann_id, enqueue_ex)
    total = {"sent": 0, "skipped": 0, "failed": 0, "retried": 0}
    limit = settings().email_sweep_limit
    while True:
        chunk = min(SWEEP_CHUNK, limit - swept)
        r = mail.sweep(limit=chunk, totals=counters, full=every, queued=queued)
        done = r["sent"] + r["skipped"] + r["failed"] + r["retry"]
        swept += done
        for k, src in (("sent", "sent"), ("skipped", "skipped"), ("failed", "failed"), ("retried", "retry")):
            total[k] += r[src]
        if done < chunk or swept >= limit:
            return total, None
        counters, every, queued = None, True, 0
        if not more():
            return total, {"swept": swept}


def _reminders_step(name: str) -> Step:
    def step(state: dict, more: More) -> tuple[dict, dict | None]:
        from ..engagement import reminders

        counts, after = getattr(reminders, name)(str(state.get("after") or ""), more)
        return counts, (None if after is None else {"after": after})

    return step


def job_alerts_step(state: dict, more: More) -> tuple[dict, dict | None]:
    from ..jobs import alerts

    return alerts.weekly_alerts_from(state, more)


STEPS: dict[str, Step] = {"process-emails": process_emails_step,
                          "inactive-students": _reminders_step("inactive_students_from"),
                          "deadline-reminders": _reminders_step("deadline_reminders_from"),
                          "job-alerts": job_alerts_step}


def run_steps(step: Step) -> dict:
    """All of a job in this invocation (no time budget)."""
    result, state = step({}, lambda: True)
    while state is not None:
        delta, state = step(state, lambda: True)
        result = tasks.merge(result, delta)
    return result


def start(job: str, more: More) -> tuple[dict, str | None]:
    """Run ``job`` while ``more()``; ``({ok, sent, skipped...}, None)`` when it finished (its run is
    recorded), ``(partial counts, task id)`` when the worker goes on with it (``internships.tasks``)."""
    result, task_id = tasks.run_or_defer("cron", job, STEPS[job], more)
    result = {"ok": True, **result}
    if task_id is None:
        repo.record_run(job, clock.today(), result)
    return result, task_id


def run(job: str) -> dict:
    result = {"ok": True, **run_steps(STEPS[job])}
    repo.record_run(job, clock.today(), result)
    return result
