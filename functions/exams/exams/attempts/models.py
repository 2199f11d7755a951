from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, RootModel

from lambdakit.model import MULTILINE, Model

from ..apidoc import CursorPageQuery
from ..papers.models import MAX_TEST_QUESTIONS, TestAttemptView, TestNamed


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
#: A saved answer's length (essays, code): longer is a 400.
MAX_ANSWER_CHARS = 20_000
#: Issue 23 rule 3: the graded ``results`` list on the attempt item (``A#META``) keeps an answer
#: only up to this many characters (option letters, true/false, short fill-ins). Longer answers
#: stay in their ``A#ANS#<question>`` items and are joined back on read (``views.joined_results``),
#: so 500 questions of long answers never put the attempt item past DynamoDB's 400 KB (a result
#: entry is at most ~400 bytes: 500 of them ≈ 200 KB).
INLINE_ANSWER_CHARS = 16
Number = int | float  # a whole number stays one in JSON
#: A saved or graded answer as the candidate gave it: an option letter, a list of letters, true/false or
#: text (several lines: an essay, code; ``student_answer`` is multi-line on input, so is what is shown).
AnswerValue = Annotated[str | list[str] | bool | None, MULTILINE]


class AttemptView(TestNamed):
    """An attempt as its reader may see it (``views.present``): the answer of the list, submit and,
    with more, of start, detail and grades. A key absent from the answer is one that does not apply
    (``remaining_seconds``, ``current_section`` and ``server_time`` while in progress, the results
    once submitted); ``score`` is null and ``result_masked`` true when the test hides results.
    ``test_name`` is the test's name when the attempt started (``TestNamed``)."""

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
    time_taken: Number | None = Field(default=None, description=(
        "Once submitted: the `time_taken` the client supplied on submit (spec; unit not shown), or the "
        "server's measurement when the client gave none"))
    server_time_taken: Number | None = Field(default=None, description=(
        "Once submitted: seconds from start to submission measured by the server (capped at the deadline "
        "+ grace); analytics and the report use this one"))
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


class OptionView(Model):
    key: str
    text: str | None = None


class PaperQuestion(Model):
    """A question as a candidate sees it (``paper.public_question``): no answer key, options in
    the attempt's order."""

    id: str
    question_text: str | None = None
    question_type: str | None = None
    marks: Number | None = None
    options: list[OptionView] | None = None
    section_id: str | None = None


class SectionWindow(Model):
    """A section of the attempt with its closing time (null: no own duration)."""

    id: str
    title: str | None = None
    question_ids: list[str] | None = None
    lock_navigation: bool | None = None
    closes_at: str | None = None


class SavedAnswer(Model):
    """A saved answer (``views.answer_view``): the spec's attempt answer {attempt_id, question_id,
    selected_option, marked_for_review}, plus ``student_answer`` (the same value) and ``saved_at``."""

    attempt_id: str
    question_id: str
    selected_option: AnswerValue = None
    student_answer: AnswerValue = None
    marked_for_review: bool
    saved_at: str | None = None


class SavedAnswers(RootModel):
    """``GET /api/attempt-answers/{id}``: the attempt's saved answers."""

    # not ``RootModel[...]``: parametrising builds a generic validator at import, on the cold path
    # of every function importing this module; RootModel is not lambdakit's Model, so defer here
    model_config = ConfigDict(defer_build=True)
    root: list[SavedAnswer]


class QuestionResultView(Model):
    """One graded question (``grading.QuestionResult``; a long answer joined back from its saved item)."""

    question_id: str
    question_type: str | None = None
    answer: AnswerValue = None
    status: str = Field(description="correct, incorrect or unanswered; subjective and coding: pending until graded by hand, then graded")
    marks_awarded: Number
    max_marks: Number
    section_id: str | None = None


class _Results(Model):
    results: list[QuestionResultView] | None = Field(default=None, description=(
        f"One entry per question of the paper (at most {MAX_TEST_QUESTIONS}). Bound (issue 23 rule 3): the "
        f"attempt item keeps an answer of at most {INLINE_ANSWER_CHARS} characters inline; longer answers (up "
        f"to {MAX_ANSWER_CHARS:,} characters each) are kept as separate saved-answer items and joined back "
        "here, so no attempt item can outgrow DynamoDB's 400 KB."))


class AttemptStartView(AttemptView, TestAttemptView):
    """``POST /api/attempts``: the attempt, the test's ``TestAttemptView`` fields and, for a guest,
    the guest identity token."""

    guest_token: str | None = Field(default=None, description=(
        "Guests only, on start: the guest identity token (also set as the `exam_guest` cookie); send it back "
        "as `X-Guest-Token` on later starts"))


class AttemptDetailView(AttemptView, TestAttemptView, _Results):
    """``GET /api/attempts/{id}``: the attempt, the test's ``TestAttemptView`` fields, its
    questions, section windows, saved answers and, once visible, the results."""

    questions: list[PaperQuestion] = Field(default_factory=list)
    sections: list[SectionWindow] = Field(default_factory=list)
    answers: list[SavedAnswer] = Field(default_factory=list)


class AttemptGradesView(AttemptView, _Results):
    """``PUT /api/attempts/{id}/grades``: the re-graded attempt and every question's result."""
