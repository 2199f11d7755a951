from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field

from lambdakit.model import Model

from ..apidoc import CursorPageQuery
from ..papers.models import TestAttemptView


class StartIn(Model):
    model_config = ConfigDict(extra="ignore")

    test_id: str | None = Field(default=None, max_length=64, description=(
        "Students and admins: the test. Guests may send it too; it must then be the share code's test"))
    student_id: str | None = Field(default=None, max_length=128)
    share_code: str | None = Field(default=None, max_length=16, description="Guests: required (8 characters)")
    guest_name: str | None = Field(default=None, max_length=100, description=(
        "Guests: optional display name (default `Guest`)"))


class _AnswerBase(Model):
    model_config = ConfigDict(extra="ignore")

    question_id: str = Field(min_length=1, max_length=64)
    marked_for_review: bool | None = None
    time_spent: int | None = Field(default=None, ge=0, le=86400)  # client-reported seconds (report)


class BatchAnswer(_AnswerBase):
    attempt_id: str = Field(min_length=1, max_length=64)
    selected_option: str | list[str] | bool | None = None


class SingleAnswer(_AnswerBase):
    student_answer: str | list[str] | bool | None = None


#: ``time_taken`` as the client reports it (spec: an integer supplied by the client on submit, unit
#: not shown; answered back as the attempt's ``time_taken``, while the server's own measurement is
#: ``server_time_taken``): a number from 0 to 10^12 (seconds or milliseconds for decades); anything
#: else is a 400 naming the field, never a value DynamoDB refuses.
ClientTimeTaken = Annotated[float | None, Field(default=None, ge=0, le=10**12)]


class SubmitIn(Model):
    model_config = ConfigDict(extra="ignore")

    attempt_id: str = Field(min_length=1, max_length=64)
    time_taken: ClientTimeTaken = None


class Grade(Model):
    question_id: str = Field(min_length=1, max_length=64)
    marks: float


class GradesIn(Model):
    grades: list[Grade] = Field(min_length=1, max_length=500)


# ---------------------------------------------------------------- OpenAPI-only models
class AttemptOut(Model):
    """An attempt as its reader may see it (score null and result_masked when results are hidden)."""
    model_config = ConfigDict(extra="allow")

    id: str
    test_id: str
    student_id: str | None = None
    client_id: str | None = None
    status: str
    is_guest: bool
    guest_name: str | None = None
    attempt_token: str | None = Field(default=None, description="Guests only, on start")
    guest_token: str | None = Field(default=None, description=(
        "Guests only, on start: the guest identity token (also set as the `exam_guest` cookie); send it back "
        "as `X-Guest-Token` on later starts"))
    started_at: str | None = None
    deadline: str | None = None
    remaining_seconds: float | None = None
    submitted_at: str | None = None
    time_taken: float | None = Field(default=None, description=(
        "Once submitted: the `time_taken` the client supplied on submit (spec; unit not shown), or the "
        "server's measurement when the client gave none"))
    server_time_taken: float | None = Field(default=None, description=(
        "Once submitted: seconds from start to submission measured by the server (capped at the deadline "
        "+ grace); analytics and the report use this one"))
    score: float | None = None
    total_marks: float | None = None
    percentage: float | None = None
    passed: bool | None = None
    result_masked: bool | None = None


class AttemptDetail(AttemptOut):
    questions: list[dict] = []
    sections: list[dict] = []
    answers: list[dict] = []
    results: list[dict] | None = Field(default=None, description=(
        "One entry per question of the paper (at most 500). Bound (issue 23 rule 3): the attempt item keeps "
        "an answer of at most 16 characters inline; longer answers (up to 20,000 characters each) are kept "
        "as separate saved-answer items and joined back here, so no attempt item can outgrow DynamoDB's "
        "400 KB."))


class SavedAnswer(Model):
    model_config = ConfigDict(extra="allow")

    attempt_id: str
    question_id: str
    selected_option: Any = None
    student_answer: Any = None
    marked_for_review: bool
    saved_at: str | None = None


class SaveResult(Model):
    attempt_id: str
    saved: int
    saved_at: str
    remaining_seconds: float


class BatchAnswers(Model):
    """The batch body may also be a bare array of entries."""
    answers: list[BatchAnswer] = Field(min_length=1, max_length=99)


class SubmitBody(Model):
    model_config = ConfigDict(extra="ignore")

    time_taken: ClientTimeTaken = None


class AttemptListQuery(CursorPageQuery):
    student_id: str | None = None
    test_id: str | None = None
    attempt_id: str | None = Field(default=None, description="Guests: their attempt (with attempt_token)")
    attempt_token: str | None = None


class GuestOut(Model):
    """A guest identity of a test (the owner's guest list)."""
    guest_id: str = Field(description="Hash of the test, guest token, client IP and User-Agent (no raw IP is stored)")
    guest_name: str | None = Field(default=None, description="Name given on the identity's latest start")
    attempts: int = Field(description="Attempts this identity started (counted against attempts_allowed)")
    counts_as_candidate: bool = Field(description="It saved an answer, so it holds one candidate slot")
    first_started_at: str | None = None
    last_started_at: str | None = None
    last_attempt_id: str | None = None


# ---------------------------------------------------------------- response models (issue 35)
Number = int | float  # a whole number stays one in JSON


class AttemptView(Model):
    """The attempt's own fields (``views.present``): a key absent from the answer is one that does
    not apply (``remaining_seconds`` and ``current_section`` while in progress, the results once
    submitted)."""

    id: str
    test_id: str
    student_id: str | None = None
    client_id: str | None = None
    status: str
    is_guest: bool
    guest_name: str | None = None
    attempt_token: str | None = Field(default=None, description="Guests only, on start")
    started_at: str | None = None
    deadline: str | None = None
    submitted_at: str | None = None
    time_taken: Number | None = Field(default=None, description=AttemptOut.model_fields["time_taken"].description)
    server_time_taken: Number | None = Field(default=None, description=AttemptOut.model_fields["server_time_taken"].description)
    attempt_number: int | None = None
    risk_score: Number | None = None
    submit_reason: str | None = None
    remaining_seconds: Number | None = None
    current_section: str | None = None
    server_time: str | None = None
    score: Number | None = None
    total_marks: Number | None = None
    percentage: Number | None = None
    passed: bool | None = None
    result_masked: bool | None = None
    pending_manual_grading: int | None = None


class AttemptStartView(AttemptView, TestAttemptView):
    """``POST /api/attempts``: the attempt, the test's ``TestAttemptView`` fields and, for a guest,
    the guest identity token."""

    guest_token: str | None = Field(default=None, description=AttemptOut.model_fields["guest_token"].description)


class AttemptDetailView(AttemptView, TestAttemptView):
    """``GET /api/attempts/{id}`` (and the manual grades' answer): the attempt, the test's
    ``TestAttemptView`` fields, its questions, section windows, saved answers and, once visible,
    the results."""

    questions: list[dict] = Field(default_factory=list)
    sections: list[dict] = Field(default_factory=list)
    answers: list[dict] = Field(default_factory=list)
    results: list[dict] | None = Field(default=None, description=AttemptDetail.model_fields["results"].description)
