"""Response bodies of the clients routes (``exams.clients.models`` re-exports them with the
request bodies). Apart so that the list, which answers with ``Client``, does not import the
request models (their URL type, the plan catalogue) on a cold start (issue 21)."""
from __future__ import annotations

from pydantic import ConfigDict

from lambdakit.model import Model


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
    model_config = ConfigDict(extra="allow")

    max_exams_per_month: int | None = None
    max_students_per_exam: int | None = None
    max_questions_per_exam: int | None = None


class ClientDetail(Client):
    """A client with its limit overrides (and, on creation, its subscription)."""
    model_config = ConfigDict(extra="allow")

    limits: ClientLimits | None = None
    subscription: dict | None = None
