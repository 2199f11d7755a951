from __future__ import annotations

from pydantic import ConfigDict, Field

from lambdakit.model import Model
from lambdakit.validated import FreeDict

from ..apidoc import CursorPageQuery


class EventIn(Model):
    model_config = ConfigDict(extra="ignore")

    attempt_id: str = Field(min_length=1, max_length=64)
    test_id: str | None = Field(default=None, max_length=64)
    event_type: str = Field(min_length=1, max_length=64)
    evidence: str | None = None
    metadata: FreeDict | None = None


class EventOut(Model):
    """A proctoring event: the recorded event on POST (with the attempt's risk and state after it,
    ``duplicate`` for a repeat within the de-duplication window) and in the listing."""

    id: str | None = None
    event_type: str
    severity: str | None = None
    score: int | None = None
    risk_score: int | None = None
    duplicate: bool | None = None
    attempt_status: str | None = None
    auto_submitted: bool | None = None
    attempt_id: str | None = None
    test_id: str | None = None
    created_at: str | None = None
    evidence_url: str | None = None
    evidence_url_expires_in: int | None = None


class EventListQuery(CursorPageQuery):
    attempt_id: str = Field(min_length=1)
    attempt_token: str | None = None
