"""Response bodies of the analytics and stats routes (OpenAPI)."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class Dashboard(BaseModel):
    """SA (role super_admin: totals, plan_distribution, expiring_subscriptions, activity_today,
    top_organisations, live_load) or CA (role client_admin: counts, average_score, pass_rate,
    top_performers, per_test, usage_vs_limits)."""
    model_config = ConfigDict(extra="allow")

    role: str


class TestAnalytics(BaseModel):
    model_config = ConfigDict(extra="allow")

    test_id: str
    test_name: str | None = None
    total_attempts: int
    completed: int
    average_score: float
    average_percentage: float
    pass_rate: float
    test_statistics: dict[str, Any]
    difficulty_analysis: dict[str, Any]


class StudentAnalytics(BaseModel):
    model_config = ConfigDict(extra="allow")

    student_id: str
    attempts: int
    per_test: list[dict]
    trend: list[dict]
