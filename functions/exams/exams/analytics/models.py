"""Response bodies of the analytics and stats routes (issue 35: each answer is dumped through these)."""
from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, RootModel

from lambdakit.model import Model

Number = int | float  # a whole number stays one in JSON

#: The dashboards' list sizes (``service`` reads them from here).
TOP_ORGANISATIONS = 10
TOP_PERFORMERS = 5
RECENT_TESTS = 20
EXPIRING_WITHIN_DAYS = 30


# ---------------------------------------------------------------- dashboards: one view per caller
class ActivityToday(Model):
    """Today's counters (UTC day). ``date`` and ``proctoring_events``: the super admin's view only."""

    date: str | None = None
    attempts_started: int
    attempts_submitted: int
    proctoring_events: int | None = None


class Counts(Model):
    """A tenant's counters, maintained at write time (``stats.counters``)."""

    students: int
    client_admins: int
    questions: int
    tests: int
    tests_published: int
    attempts: int
    attempts_submitted: int
    proctoring_events: int


class Totals(Counts):
    """The platform's counters: a tenant's and the number of clients."""

    clients: int


class ExpiringSubscription(Model):
    client_id: str
    name: str | None = None
    plan_id: str | None = None
    status: str | None = None
    expiry_date: str | None = None


class TopOrganisation(Model):
    client_id: str
    name: str | None = None
    submitted_attempts: int


class LiveLoad(Model):
    attempts_in_progress: int
    attempts_started_today: int


class SuperAdminDashboard(Model):
    """``GET /api/stats`` (and ``/dashboard``) of a super admin without ``client_id``: the platform."""

    role: Literal["super_admin"]
    totals: Totals
    plan_distribution: dict[str, int] = Field(description="Clients per plan id")
    expiring_subscriptions: list[ExpiringSubscription] = Field(description=(
        f"Within {EXPIRING_WITHIN_DAYS} days (today included), soonest first"))
    activity_today: ActivityToday
    top_organisations: list[TopOrganisation] = Field(description=(
        f"At most {TOP_ORGANISATIONS}, by submitted attempts"))
    live_load: LiveLoad
    average_score: Number


class TopPerformer(Model):
    """A tenant's best attempt per student (or guest attempt), highest percentage first."""

    student_id: str | None = None
    guest_name: str | None = None
    attempt_id: str
    test_id: str
    test_name: str | None = None
    percentage: Number | None = None
    score: Number | None = None
    total_marks: Number | None = None


class TestBreakdown(Model):
    """One of the tenant's most recent tests."""

    test_id: str
    test_name: str | None = None
    status: str | None = None
    attempts: int
    completed: int
    average_percentage: Number
    pass_rate: Number


class UsageVsLimits(Model):
    """The tenant's plan usage this month (empty when it has no entitlement)."""

    plan_id: str | None = None
    month: str | None = None
    exams_this_month: int | None = None
    exams_per_month_limit: int | None = None
    questions_per_exam_limit: int | None = None
    students_per_exam_limit: int | None = None
    features: list[str] | None = None


class ClientDashboard(Model):
    """``GET /api/stats`` (and ``/dashboard``) of a client admin, or of a super admin with ``client_id``."""

    role: Literal["client_admin"]
    client_id: str
    counts: Counts
    average_score: Number
    pass_rate: Number
    top_performers: list[TopPerformer] = Field(description=f"At most {TOP_PERFORMERS}")
    per_test: list[TestBreakdown] = Field(description=f"The tenant's {RECENT_TESTS} most recent tests")
    usage_vs_limits: UsageVsLimits
    activity_today: ActivityToday


class Dashboard(RootModel):
    """``SuperAdminDashboard`` (the platform) or ``ClientDashboard`` (one tenant), by ``role``."""

    # not ``RootModel[...]``: parametrising builds a generic validator at import, on the cold path
    # of every function importing this module; RootModel is not lambdakit's Model, so defer here
    model_config = ConfigDict(defer_build=True)
    root: SuperAdminDashboard | ClientDashboard


# ---------------------------------------------------------------- test analytics
class TestStatistics(Model):
    """Mean and SD (exact running sums), median, Cronbach's alpha. Bound (issue 23 rule 3): the
    score histogram behind the median is kept on a grid of at most ``itemstats.HIST_BINS`` steps of the test's
    maximum (1, 2, 2.5 or 5 x 10^k marks; whole, half and quarter marks stay exact), so the
    statistics items stay a few KB whatever the number of attempts or the marks given. A figure
    that needs more attempts is null."""

    n: int
    mean: Number | None = None
    median: Number | None = None
    sd: Number | None = None
    cronbach_alpha: Number | None = None
    kr20: Number | None = Field(default=None, description="Cronbach's alpha when every item is right/wrong")
    error_ratio: Number | None = None
    standard_error: Number | None = None


class ItemStatistics(Model):
    """One question: Moodle facility and discrimination indexes (exact running sums),
    discriminative efficiency (item scores on a grid of at most ``itemstats.ITEM_BINS`` steps of the question's marks,
    rest scores on the test grid) and option counts (real options A-D only: free text in an option
    answer is never counted). An index that needs more attempts is null."""

    question_id: str
    question_type: str | None = None
    max_marks: Number
    attempts: int
    correct: int
    unanswered: int
    correct_ratio: Number | None = None
    option_counts: dict[str, int] = Field(description="Answers per option letter")
    mean: Number | None = None
    facility_index: Number | None = None
    standard_deviation: Number | None = None
    discrimination_index: Number | None = None
    discriminative_efficiency: Number | None = None
    difficulty: str | None = Field(default=None, description="easy, medium or hard (facility index bands)")


class DifficultyAnalysis(Model):
    """Questions per difficulty band, and each question's statistics in paper order."""

    easy: int
    medium: int
    hard: int
    not_enough_data: int
    questions: list[ItemStatistics]


class TestAnalytics(Model):
    test_id: str
    test_name: str | None = None
    total_attempts: int
    completed: int
    average_score: Number
    average_percentage: Number
    pass_rate: Number
    average_time_taken: Number = Field(description="Seconds, the server's measurement (`server_time_taken`)")
    test_statistics: TestStatistics
    difficulty_analysis: DifficultyAnalysis


# ---------------------------------------------------------------- student analytics
class ScoreEntry(Model):
    attempt_id: str
    score: Number | None = None
    total_marks: Number | None = None
    percentage: Number
    submitted_at: str | None = None


class StudentTestSummary(Model):
    """A test the student submitted attempts of (only tests whose results the caller may see)."""

    test_id: str
    test_name: str | None = None
    attempts: int
    best_percentage: Number | None = None
    last_percentage: Number | None = None
    scores: list[ScoreEntry]


class TrendPoint(Model):
    submitted_at: str | None = None
    test_id: str
    percentage: Number


class StudentAnalytics(Model):
    student_id: str
    attempts: int
    completed: int
    in_progress: int
    average_percentage: Number | None = None
    per_test: list[StudentTestSummary]
    trend: list[TrendPoint] = Field(description="Every visible score, oldest first")
    trend_direction: str | None = Field(default=None, description="improving, declining or steady (null: fewer than 2 scores)")
    trend_slope: Number | None = None
