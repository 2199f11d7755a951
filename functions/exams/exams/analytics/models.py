"""Response bodies of the analytics and stats routes (OpenAPI)."""
from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from lambdakit.model import Model


class Dashboard(Model):
    """SA (role super_admin: totals, plan_distribution, expiring_subscriptions, activity_today,
    top_organisations, live_load) or CA (role client_admin: counts, average_score, pass_rate,
    top_performers, per_test, usage_vs_limits)."""
    model_config = ConfigDict(extra="allow")

    role: str


class TestAnalytics(Model):
    model_config = ConfigDict(extra="allow")

    test_id: str
    test_name: str | None = None
    total_attempts: int
    completed: int
    average_score: float
    average_percentage: float
    pass_rate: float
    test_statistics: dict[str, Any] = Field(description=(
        "Mean and SD (exact running sums), median, Cronbach's alpha. Bound (issue 23 rule 3): the score "
        "histogram behind the median is kept on a grid of at most 2,000 steps of the test's maximum "
        "(1, 2, 2.5 or 5 x 10^k marks; whole, half and quarter marks stay exact), so the statistics "
        "items stay a few KB whatever the number of attempts or the marks given."))
    difficulty_analysis: dict[str, Any] = Field(description=(
        "Per question: Moodle facility and discrimination indexes (exact running sums), discriminative "
        "efficiency (item scores on a grid of at most 100 steps of the question's marks, rest scores on "
        "the test grid) and option counts (real options A-D only: free text in an option answer is "
        "never counted)."))


class StudentAnalytics(Model):
    model_config = ConfigDict(extra="allow")

    student_id: str
    attempts: int
    per_test: list[dict]
    trend: list[dict]
