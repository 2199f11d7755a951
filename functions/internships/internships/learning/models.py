"""Milestone bodies."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class SubmitMilestone(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    submissionNotes: str = Field(min_length=10, max_length=10_000)
    submissionUrl: str | None = Field(default=None, max_length=2000)


class ReviewMilestone(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    remarks: str = Field(default="", max_length=5000)
    action: Literal["approve", "reject"] = "approve"


class ForceStatus(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    status: Literal["pending", "submitted", "reviewed", "rejected"]
    remarks: str = Field(default="", max_length=5000)
