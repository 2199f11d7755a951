"""Task status bodies (OpenAPI)."""
from __future__ import annotations

from pydantic import ConfigDict

from lambdakit.model import Model


class TaskStatus(Model):
    """A task's status and its counts so far (the job's own counters: sent, skipped... or added,
    updated, sources, errors)."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    ok: bool
    taskId: str  # noqa: N815 - the API's spelling
    kind: str
    status: str
    createdAt: str | None = None  # noqa: N815
    updatedAt: str | None = None  # noqa: N815
    finishedAt: str | None = None  # noqa: N815


class TaskAccepted(Model):
    """202: the work goes on asynchronously; ``statusUrl`` (also ``Location``) answers its status."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    ok: bool = True
    status: str
    taskId: str  # noqa: N815
    statusUrl: str  # noqa: N815
