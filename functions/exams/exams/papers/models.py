from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, ConfigDict, Field, field_validator

from lambdakit.model import Model

from ..apidoc import CursorPageQuery

Flag = Literal[0, 1]


class SectionIn(Model):
    model_config = ConfigDict(extra="ignore")

    id: str | None = Field(default=None, max_length=64)
    title: str = Field(default="", max_length=200)
    question_ids: list[str] = Field(default_factory=list, max_length=500)
    duration_minutes: float | None = Field(default=None, gt=0, le=24 * 60)
    negative_marks_ratio: float | None = Field(default=None, ge=0, le=1)
    shuffle_questions: bool | None = None
    shuffle_options: bool | None = None
    lock_navigation: bool = False


class TestFields(Model):
    """Every settable field of a test (create and update)."""

    model_config = ConfigDict(extra="ignore")

    test_name: str | None = Field(default=None, min_length=1, max_length=300)
    description: str | None = Field(default=None, max_length=5000)
    timer: int | None = None
    shuffle: Flag | None = None
    shuffle_options: Flag | None = None
    allow_review: Flag | None = None
    negative_marking: Flag | None = None
    negative_marks_ratio: float | None = Field(default=None, ge=0, le=1)
    folder_id: str | None = Field(default=None, max_length=128)
    allow_guests: bool | None = None
    show_results_after_submission: bool | None = None
    question_ids: list[str] | None = Field(default=None, max_length=500, description=(
        "At most 500 question ids. A test holds at most 500 questions in all (with `sections`, across all "
        "sections together): more is a 400 `INVALID_TEST_CONFIGURATION` with `details.reason` "
        "`too_many_questions` and `details.limit` 500."))
    sections: list[SectionIn] | None = Field(default=None, max_length=50, description=(
        "At most 50 sections and at most 500 questions across all sections together."))
    scheduled_start: str | None = None
    scheduled_end: str | None = None
    timezone: str | None = Field(default=None, max_length=64)
    attempts_allowed: int | None = Field(
        default=None, ge=0, le=1000, validation_alias=AliasChoices("attempts_allowed", "allowed_attempts"),
        description="Attempts per student or guest identity, 0 = unlimited (also accepted as `allowed_attempts`, "
                    "the name of ATTEMPT_LIMIT_EXCEEDED's detail)")
    camera_required: bool | None = None
    passing_percentage: float | None = Field(default=None, ge=0, le=100)
    active_status: Flag | None = None
    status: Literal["draft", "published", "archived"] | None = None
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


# ---------------------------------------------------------------- OpenAPI-only models
class TestOut(Model):
    """A test: the full item for admins, the public fields for students and share-code lookups."""
    model_config = ConfigDict(extra="allow")

    id: str
    test_name: str | None = None
    description: str | None = None
    timer: int | None = None
    status: str | None = None
    share_code: str | None = None
    question_count: int | None = None
    client_id: str | None = None
    result_status: str | None = None
    sections: list[dict] | None = None


class TestListQuery(CursorPageQuery):
    share_code: str | None = Field(default=None, description=(
        "Public lookup (no token): a page of one, that test's public fields"))
    client_id: str | None = Field(default=None, description="Required for super admins")
    status: Literal["draft", "published", "archived"] | None = None
    folder_id: str | None = None

