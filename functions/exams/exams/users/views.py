"""Response bodies of the users routes (``exams.users.models`` re-exports them with the request
bodies). Apart so that the reads, which answer with ``Profile``, do not import the request models
(``EmailStr``: pydantic's network types) on a cold start (issue 21)."""
from __future__ import annotations

from lambdakit.model import Model


class Profile(Model):
    id: str
    email: str
    name: str
    role: str
    client_id: str | None = None
    active_status: int = 1
    created_at: str | None = None
    updated_at: str | None = None


class CreatedUser(Model):
    id: str
    email: str
    name: str
    role: str
    client_id: str | None = None
