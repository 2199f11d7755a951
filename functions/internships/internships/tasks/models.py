"""Task status bodies (OpenAPI and the answers' shape, issue 35).

A task's status carries the counters of its job so far (``tasks.service.merge``): a cron job's
(``CronCounts``) or a jobs fetch's (``FetchCounts``). The cron routes document ``TaskStatus`` and
``TaskAccepted``; the admin jobs routes their fetch views (``admin_engagement.models``)."""
from __future__ import annotations

from typing import Optional

from pydantic import ConfigDict, Field

from lambdakit.model import Model


class _Out(Model):
    model_config = ConfigDict(defer_build=True)


class TaskError(_Out):
    source: str
    error: str


class FetchCounts(_Out):
    """What a jobs fetch did: jobs added and updated, sources read, errors (the first
    ``tasks.service.MAX_LIST``)."""
    added: int = 0
    updated: int = 0
    sources: int = 0
    errors: list[TaskError] = Field(default_factory=list)


class CronCounts(_Out):
    """A cron job's counters (each job sets its own)."""
    sent: Optional[int] = None
    skipped: Optional[int] = None
    failed: Optional[int] = None
    retried: Optional[int] = None
    fetched: Optional[FetchCounts] = None


class Task(_Out):
    ok: bool = True
    taskId: str  # noqa: N815 - the API's spelling
    kind: str
    status: str = Field(description="running, done or failed")
    createdAt: str | None = None  # noqa: N815
    updatedAt: str | None = None  # noqa: N815
    finishedAt: str | None = None  # noqa: N815


class TaskStatus(Task, CronCounts):
    """A cron task's status and its counts so far."""


class Accepted(_Out):
    """202: the work goes on asynchronously; ``statusUrl`` (also ``Location``) answers its status."""
    status: str
    taskId: str  # noqa: N815
    statusUrl: str  # noqa: N815


class TaskAccepted(Accepted, CronCounts):
    """A cron run's 202, with the counts so far."""
    ok: bool = True
