"""Response bodies of the clients routes (``exams.clients.models`` re-exports them with the
request bodies). Apart so that the list, which answers with ``Client``, does not import the
request models (their URL type, the plan catalogue) on a cold start (issue 21)."""
from __future__ import annotations

from pydantic import Field

from lambdakit.model import Model

from ..billing.views import Subscription

#: ``notes``: the super admin's plain text about a tenant (several lines).
MAX_CLIENT_NOTES = 2000


class ClientSettable(Model):
    """A client's settable fields shown as given: declared once here, inherited by the request
    models (``CreateClient``, ``UpdateClient``) and the views (docs/exams-architecture.md, "Adding a
    field")."""

    address: str | None = Field(default=None, max_length=500)
    notes: str | None = Field(default=None, max_length=MAX_CLIENT_NOTES, description=(
        f"The super admin's notes about the tenant (plain text, several lines, at most {MAX_CLIENT_NOTES} "
        "characters); only super admins see clients."))


class Client(ClientSettable):
    id: str
    name: str
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
