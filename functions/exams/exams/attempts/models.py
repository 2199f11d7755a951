from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class StartIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    test_id: str | None = Field(default=None, max_length=64)
    student_id: str | None = Field(default=None, max_length=128)
    share_code: str | None = Field(default=None, max_length=16)
    guest_name: str | None = Field(default=None, max_length=100)


class _AnswerBase(BaseModel):
    model_config = ConfigDict(extra="ignore")

    question_id: str = Field(min_length=1, max_length=64)
    marked_for_review: bool | None = None
    time_spent: int | None = Field(default=None, ge=0, le=86400)  # client-reported seconds (report)


class BatchAnswer(_AnswerBase):
    attempt_id: str = Field(min_length=1, max_length=64)
    selected_option: str | list[str] | bool | None = None


class SingleAnswer(_AnswerBase):
    student_answer: str | list[str] | bool | None = None


class SubmitIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    attempt_id: str = Field(min_length=1, max_length=64)
    time_taken: Any = None


class Grade(BaseModel):
    question_id: str = Field(min_length=1, max_length=64)
    marks: float


class GradesIn(BaseModel):
    grades: list[Grade] = Field(min_length=1, max_length=500)
