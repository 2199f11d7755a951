"""Cron route bodies: what ``GET /api/cron/<job>`` and ``GET /api/cron/tasks/<taskId>`` return (issue 35:
each answer is dumped through these models, so a counter a job starts returning is declared here)."""
from __future__ import annotations

from lambdakit.model import Model


class JobFetch(Model):
    """job-alerts: what the run's fetch of the configured job sources found."""

    added: int
    updated: int
    sources: int


class CronCounts(Model):
    """The job's counters; each job returns the ones it keeps (absent otherwise)."""

    sent: int = 0
    skipped: int = 0
    #: process-emails: mails that failed for good, and mails left for a retry
    failed: int = 0
    retried: int = 0
    fetched: JobFetch | None = None


class CronResult(CronCounts):
    """200: the run finished within the request (``{ok, sent, skipped}`` plus the job's counters)."""

    ok: bool


class CronAccepted(CronResult):
    """202: the run goes on in the worker; ``statusUrl`` (also ``Location``) answers its status, and the
    counters are those so far."""

    status: str
    taskId: str  # noqa: N815 - the API's spelling
    statusUrl: str  # noqa: N815


class CronTaskStatus(CronResult):
    """A cron run that went on asynchronously: running, done or failed, its counters so far."""

    taskId: str  # noqa: N815
    kind: str
    status: str
    createdAt: str | None = None  # noqa: N815
    updatedAt: str | None = None  # noqa: N815
    finishedAt: str | None = None  # noqa: N815
