from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, ConfigDict, Field, RootModel, field_validator

from lambdakit.model import Model

from ..apidoc import CursorPageQuery

Flag = Literal[0, 1]

#: Issue 23 rule 3: questions of one test, all sections together (``question_ids`` and each
#: section's list are each capped at this by the request model; 50 sections could hold 25,000).
#: Bounds the test item, its answer key and every attempt's order and results.
MAX_TEST_QUESTIONS = 500
MAX_SECTIONS = 50
#: ``instructions``: plain text (several lines) shown to whoever takes the test.
MAX_INSTRUCTIONS = 2000


class SectionIn(Model):
    model_config = ConfigDict(extra="ignore")

    id: str | None = Field(default=None, max_length=64)
    title: str = Field(default="", max_length=200)
    question_ids: list[str] = Field(default_factory=list, max_length=MAX_TEST_QUESTIONS)
    duration_minutes: float | None = Field(default=None, gt=0, le=24 * 60)
    negative_marks_ratio: float | None = Field(default=None, ge=0, le=1)
    shuffle_questions: bool | None = None
    shuffle_options: bool | None = None
    lock_navigation: bool = False


class TestNamed(Model):
    """The test's name: in every view of the test and on each of its attempts (``AttemptView``)."""

    model_config = ConfigDict(extra="ignore")

    test_name: str | None = Field(default=None, min_length=1, max_length=300)


class TestBrief(TestNamed):
    """The test's fields shown with each of its attempts (start and detail), and in every view of
    the test. Issue 35: a field is declared once, on the widest audience that sees it: here
    (attempts too), ``TestTakerFields`` (students and share-code visitors) or ``TestFields``
    (admins only); the request model and every narrower view inherit it."""

    instructions: str | None = Field(default=None, max_length=MAX_INSTRUCTIONS, description=(
        f"Plain text for the test taker (several lines allowed, at most {MAX_INSTRUCTIONS} characters); shown "
        "to students, share-code visitors and on the attempt (start and detail)."))


class TestTakerFields(TestBrief):
    """Settable fields students and share-code visitors see (``TestStudentView``, ``TestShareView``)."""

    description: str | None = Field(default=None, max_length=5000)
    timer: int | None = None
    allow_review: Flag | None = None
    negative_marking: Flag | None = None
    allow_guests: bool | None = None
    show_results_after_submission: bool | None = None
    scheduled_start: str | None = None
    scheduled_end: str | None = None
    timezone: str | None = Field(default=None, max_length=64)
    attempts_allowed: int | None = Field(
        default=None, ge=0, le=1000, validation_alias=AliasChoices("attempts_allowed", "allowed_attempts"),
        description="Attempts per student or guest identity, 0 = unlimited (also accepted as `allowed_attempts`, "
                    "the name of ATTEMPT_LIMIT_EXCEEDED's detail)")
    camera_required: bool | None = None
    active_status: Flag | None = None
    status: Literal["draft", "published", "archived"] | None = None


class TestFields(TestTakerFields):
    """Every settable field of a test (create and update): the takers' fields and the admins' own."""

    shuffle: Flag | None = None
    shuffle_options: Flag | None = None
    negative_marks_ratio: float | None = Field(default=None, ge=0, le=1)
    folder_id: str | None = Field(default=None, max_length=128)
    question_ids: list[str] | None = Field(default=None, max_length=MAX_TEST_QUESTIONS, description=(
        f"At most {MAX_TEST_QUESTIONS} question ids. A test holds at most {MAX_TEST_QUESTIONS} questions in all "
        "(with `sections`, across all sections together): more is a 400 `INVALID_TEST_CONFIGURATION` with "
        f"`details.reason` `too_many_questions` and `details.limit` {MAX_TEST_QUESTIONS}."))
    sections: list[SectionIn] | None = Field(default=None, max_length=MAX_SECTIONS, description=(
        f"At most {MAX_SECTIONS} sections and at most {MAX_TEST_QUESTIONS} questions across all sections together."))
    passing_percentage: float | None = Field(default=None, ge=0, le=100)
    result_status: Literal["pending", "published"] | None = None

    @field_validator("shuffle", "shuffle_options", "allow_review", "negative_marking", "active_status", mode="before")
    @classmethod
    def _flag(cls, v):
        if isinstance(v, bool):
            return int(v)
        return v


class TestCreate(TestFields):
    test_name: str = Field(min_length=1, max_length=300)
    timer: int
    package_id: str | None = Field(default=None, max_length=64)
    client_id: str | None = None


class CloneIn(Model):
    test_id: str = Field(min_length=1, max_length=64)
    test_name: str | None = Field(default=None, min_length=1, max_length=300)
    package_id: str | None = Field(default=None, max_length=64)


# ---------------------------------------------------------------- response models (issue 35)
# Each view is what one kind of caller gets, serialised through ``lambdakit.model.dump``: a key a
# view does not declare never leaves the service. docs/exams-architecture.md, "Adding a field".
class TestAttemptView(TestBrief):
    """The test's fields merged into an attempt's start and detail answers (``papers.service.for_attempt``)."""


class SectionSummary(Model):
    id: str
    title: str | None = None
    duration_minutes: float | None = None
    question_count: int = 0


class TestStudentView(TestTakerFields):
    """A published test as a student sees it (no question ids, no answer keys, no billing): every
    field present, ``null`` when unset."""

    id: str
    share_code: str | None = None
    question_count: int | None = None
    sections: list[SectionSummary] = Field(default_factory=list)


class TestShareView(TestStudentView):
    """A test found by its share code (no token): today the same fields as a student's view."""


class TestAdminView(TestFields):
    """A test as its tenant's client admins and the super admin see it: every settable field (as
    stored: a field never set is absent) and the server's own."""

    id: str
    client_id: str
    package_id: str | None = None
    share_code: str | None = None
    question_count: int | None = None
    candidate_count: int | None = None
    max_candidates: int | None = None
    max_questions: int | None = None
    created_at: str | None = None
    updated_at: str | None = None
    published_at: str | None = None


class TestOut(RootModel):
    """A test: ``TestAdminView`` for admins, ``TestStudentView`` for students, ``TestShareView`` for share codes."""

    # not ``RootModel[...]``: parametrising builds a generic validator at import, on the cold path
    # of every function importing this module; RootModel is not lambdakit's Model, so defer here
    model_config = ConfigDict(defer_build=True)
    root: TestAdminView | TestStudentView | TestShareView


class TestListQuery(CursorPageQuery):
    share_code: str | None = Field(default=None, description=(
        "Public lookup (no token): a page of one, that test's public fields"))
    client_id: str | None = Field(default=None, description="Required for super admins")
    status: Literal["draft", "published", "archived"] | None = None
    folder_id: str | None = None

