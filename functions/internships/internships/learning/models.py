"""Milestone bodies."""
from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from lambdakit.model import Model
from lambdakit.validated import WebUrl


class SubmitMilestone(Model):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    submissionNotes: str = Field(min_length=10, max_length=10_000)
    submissionUrl: WebUrl | None = Field(default=None, max_length=2000)


class ReviewMilestone(Model):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    remarks: str = Field(default="", max_length=5000)
    action: Literal["approve", "reject"] = "approve"


class ForceStatus(Model):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    status: Literal["pending", "submitted", "reviewed", "rejected"]
    remarks: str = Field(default="", max_length=5000)


# ---------------------------------------------------------------- response bodies (OpenAPI)
class _Out(Model):
    """A response body: the route's answer is dumped through it, undeclared keys are dropped (issue 35)."""


class Milestone(_Out):
    id: str
    enrollmentId: str
    order: int
    title: str
    description: str
    status: str
    locked: bool
    dueDate: str | None = None
    submissionNotes: str | None = None
    submissionUrl: str | None = None
    submittedAt: str | None = None
    remarks: str | None = None
    reviewedAt: str | None = None


class MilestoneList(_Out):
    success: bool
    enrollmentId: str
    enrollmentStatus: str
    milestones: list[Milestone]


class MilestoneSubmitted(_Out):
    success: bool
    message: str
    milestone: Milestone


class Resource(_Out):
    id: str
    title: str
    description: str
    type: str | None = None
    url: str | None = None
    downloadUrl: str | None = None
    week: int
    position: float


class Week(_Out):
    week: int
    resources: list[Resource]


class ResourcesResponse(_Out):
    success: bool
    enrollmentId: str
    domainId: str
    weeks: list[Week]


class MilestonesQuery(Model):
    enrollmentId: str = Field(description="The enrollment whose milestones to list")
