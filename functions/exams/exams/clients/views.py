"""Response bodies of the clients routes (``exams.clients.models`` re-exports them with the
request bodies). Apart so that the list, which answers with ``Client``, does not import the
request models (their URL type, the plan catalogue) on a cold start (issue 21)."""
from __future__ import annotations

from pydantic import Field

from lambdakit.model import Model

from ..billing.views import Subscription


class Client(Model):
    id: str
    name: str
    address: str | None = None
    logo_url: str | None = None
    plan_id: str
    active_status: int = 1
    created_at: str
    updated_at: str | None = None


class ClientLimits(Model):
    """The client's overrides of its plan (null: the plan's value, -1: unlimited)."""

    max_exams_per_month: int | None = None
    max_students_per_exam: int | None = None
    max_questions_per_exam: int | None = None


class ClientDetail(Client):
    """A client with its limit overrides (and, on creation, its subscription)."""

    limits: ClientLimits | None = None
    subscription: Subscription | None = Field(default=None, description="On creation only")
