from __future__ import annotations

from pydantic import ConfigDict, Field

from lambdakit.model import Model, MultiLine


class QuestionIn(Model):
    model_config = ConfigDict(extra="ignore")

    question_text: str = Field(min_length=1, max_length=5000)
    question_type: str
    option_a: str | None = None
    option_b: str | None = None
    option_c: str | None = None
    option_d: str | None = None
    correct_answer: str | bool | None = None
    correct_answers: list[str] | None = None
    marks: float = 1
    difficulty: str | None = "medium"
    case_sensitive: bool = False
    folder_id: str | None = Field(default=None, max_length=128)
    client_id: str | None = None


class Question(Model):
    """A question of the bank as stored. Options and keys are shown as stored: an imported file
    (CSV, Moodle XML, GIFT, QTI) may hold them on several lines."""

    id: str
    client_id: str
    folder_id: str | None = None
    question_text: str
    question_type: str
    option_a: MultiLine | None = None
    option_b: MultiLine | None = None
    option_c: MultiLine | None = None
    option_d: MultiLine | None = None
    correct_answer: MultiLine | None = None
    correct_answers: list[MultiLine] | None = None
    marks: float
    difficulty: str
    case_sensitive: bool = False
    import_batch_id: str | None = None
    created_by: str | None = None
    created_at: str


class ImportWarning(Model):
    line: int | None = Field(default=None, description="Line of the item in the file")
    item: str | None = Field(default=None, description="The item's name or number in the file")
    warning: str


class ImportResult(Model):
    import_batch_id: str
    imported: int
    total_rows: int
    errors: list[str] = Field(default_factory=list, description=(
        "Always empty: an import is all-or-nothing, a file with a bad row is a 400 naming every row"))
    warnings: list[ImportWarning] | None = Field(default=None, description=(
        "Interchange formats only: what was read but not kept (embedded files, negative marking), by line and item"))


# ---------------------------------------------------------------- OpenAPI-only models
class QuestionListQuery(Model):
    model_config = ConfigDict(extra="ignore")

    client_id: str | None = Field(default=None, description="Required for super admins")
    folder_id: str | None = None
    page: int | None = Field(default=None, ge=1)
    limit: int | None = Field(default=None, ge=1, le=200, description="default 50")
    cursor: str | None = None


class ImportQuery(Model):
    """Also accepted as multipart form fields."""
    model_config = ConfigDict(extra="ignore")

    format: str | None = Field(default=None, description="csv (default), moodle_xml, gift, aiken, qti3")
    client_id: str | None = None
    folder_id: str | None = None
    package_id: str | None = None


class RollbackQuery(Model):
    model_config = ConfigDict(extra="ignore")

    import_batch_id: str = Field(min_length=1)


class RollbackResult(Model):
    import_batch_id: str
    deleted: int


class ExportQuery(Model):
    model_config = ConfigDict(extra="ignore")

    format: str = Field(description="moodle_xml, gift, aiken or qti3")
    folder_id: str | None = Field(default=None, description="Without it: the whole bank")
    client_id: str | None = Field(default=None, description="Required for super admins")


class ExportFormatQuery(Model):
    model_config = ConfigDict(extra="ignore")

    format: str = Field(description="moodle_xml, gift, aiken or qti3")
