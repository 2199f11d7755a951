"""Task status bodies (OpenAPI and the answers' shape, issue 35).

A task's status (``Task``) carries the counters of its job so far (``tasks.service.merge``); each
caller's route documents its own: the admin jobs fetches ``admin_engagement.models``
(``JobsTaskStatus``, ``FetchAccepted``: ``Task``/``Accepted`` with ``FetchCounts``), the cron runs
``cron.models`` (``CronTaskStatus``, ``CronAccepted``)."""
from __future__ import annotations

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


class Task(_Out):
    ok: bool = True
    taskId: str  # noqa: N815 - the API's spelling
    kind: str
    status: str = Field(description="running, done or failed")
    createdAt: str | None = None  # noqa: N815
    updatedAt: str | None = None  # noqa: N815
    finishedAt: str | None = None  # noqa: N815


class Accepted(_Out):
    """202: the work goes on asynchronously; ``statusUrl`` (also ``Location``) answers its status."""
    status: str
    taskId: str  # noqa: N815
    statusUrl: str  # noqa: N815
