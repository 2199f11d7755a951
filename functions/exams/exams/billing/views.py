"""Response bodies of the billing routes (``exams.billing.models`` re-exports them with the request
bodies). Apart so that the clients routes, whose answers carry a subscription, import them without
the request models (issue 21)."""
from __future__ import annotations

from pydantic import Field

from lambdakit.model import Model


class PlanView(Model):
    """A plan of the catalogue (``billing.catalog.PLANS``); a null limit is unlimited."""

    id: str
    name: str
    price_inr: int | None = Field(default=None, description="null: custom pricing")
    exams_per_month: int | None = None
    students_per_exam: int | None = None
    questions_per_exam: int | None = None
    features: list[str]


class Subscription(Model):
    client_id: str
    plan_id: str | None = None
    status: str | None = None
    start_date: str | None = None
    expiry_date: str | None = Field(default=None, description="YYYY-MM-DD; null: never expires")
    created_at: str | None = None
    updated_at: str | None = None
    plan: PlanView | None = None


class SubscriptionRequest(Model):
    id: str
    client_id: str | None = None
    plan_id: str | None = None
    current_plan_id: str | None = None
    status: str
    note: str | None = None
    requested_by: str | None = None
    approved_by: str | None = None
    approved_at: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    subscription: Subscription | None = Field(default=None, description="On approval: the new subscription")


class Package(Model):
    id: str
    client_id: str | None = None
    package_type: str | None = None
    status: str
    price_inr: int | float | None = None
    max_questions: int | None = None
    max_candidates: int | None = None
    features: list[str] | None = None
    requested_by: str | None = None
    approved_by: str | None = None
    approved_at: str | None = None
    test_id: str | None = None
    used_at: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
