"""Job search and saved-job bodies (OpenAPI)."""
from __future__ import annotations

from pydantic import Field

from lambdakit.model import Model


class _Out(Model):
    """A response body: the route's answer is dumped through it, undeclared keys are dropped (issue 35)."""


class JobsQuery(Model):
    """``GET /api/jobs``: ``keyword`` and/or ``location`` (one required), or ``suggestions=1&q=``."""

    keyword: str | None = Field(default=None, max_length=100)
    location: str | None = Field(default=None, max_length=100)
    page: int = Field(default=1, ge=1)
    limit: int = Field(default=20, ge=1, le=50)
    suggestions: str | None = Field(default=None, description="1 or true: title autocomplete for q")
    q: str | None = Field(default=None, max_length=100)


class JobIdQuery(Model):
    jobId: str | None = Field(default=None, max_length=200, description="Alternative to the body's jobId")


class JobIdBody(Model):
    jobId: str = Field(min_length=1, max_length=200)


class Job(_Out):
    id: str
    title: str
    company: str
    location: str
    url: str
    description: str
    source: str | None = None
    postedAt: str | None = None
    fetchedAt: str | None = None


class JobsResponse(_Out):
    """A search page (``jobs`` + ``page``/``limit``/``total``/``pages``) or, with ``suggestions``,
    ``suggestions``."""

    success: bool
    jobs: list[Job] | None = None
    suggestions: list[str] | None = None
    page: int | None = None
    limit: int | None = None
    total: int | None = None
    pages: int | None = None


class SavedJob(_Out):
    jobId: str
    title: str | None = None
    company: str | None = None
    location: str | None = None
    url: str | None = None
    postedAt: str | None = None
    savedAt: str | None = None


class SavedJobs(_Out):
    success: bool
    jobs: list[SavedJob]
    total: int


class SaveResult(_Out):
    success: bool
    jobId: str
    saved: bool | None = None
    alreadySaved: bool | None = None
    removed: bool | None = None
