"""The contact routes' request bodies and the OpenAPI documentation models. The fields every
path shares (statuses, bounds, cleaning rules, ``ContactOut``) are ``fields``, re-exported here."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator

from lambdakit.model import Model

from ..common.view import View
from .fields import MAX_CUSTOM_FIELDS, MAX_LISTS, MAX_TAGS, clean_custom, clean_email, clean_lists, clean_tags
from .fields import STATUSES as STATUSES  # re-exported: the contact routes' names stay importable here
from .fields import ContactOut as ContactOut


class _Fields(Model):
    model_config = ConfigDict(extra="forbid")

    first_name: str | None = Field(default=None, max_length=200)
    last_name: str | None = Field(default=None, max_length=200)
    phone: str | None = Field(default=None, max_length=50)
    tags: Any = Field(default=None, description=(
        f"At most {MAX_TAGS} tags per contact, each 1-64 characters without '#' (a string is one tag). "
        "Bound (issue 23 rule 3): imports that add tags keep the contact at this limit too."))
    custom_fields: Any = Field(default=None, description=(
        f"An object of at most {MAX_CUSTOM_FIELDS} fields: keys 1-64 characters, values strings (or numbers) "
        "of at most 2,000 characters. Replaces the contact's custom fields."))
    lists: Any = Field(default=None, description=(
        f"At most {MAX_LISTS} list ids per contact (each must exist). Bound (issue 23 rule 3): imports into a "
        "list keep the contact at this limit too."))
    status: Literal["active", "unsubscribed", "bounced"] | None = None

    _tags = field_validator("tags")(classmethod(lambda cls, v: None if v is None else clean_tags(v)))
    _custom = field_validator("custom_fields")(classmethod(lambda cls, v: None if v is None else clean_custom(v)))
    _lists = field_validator("lists")(classmethod(lambda cls, v: None if v is None else clean_lists(v)))


class ContactIn(_Fields):
    email: str

    _email = field_validator("email", mode="before")(classmethod(lambda cls, v: clean_email(v)))


class ContactPatch(_Fields):
    email: str | None = None

    _email = field_validator("email", mode="before")(
        classmethod(lambda cls, v: None if v is None else clean_email(v)))


# ---------------------------------------------------------------- documentation models (OpenAPI)
class ContactsQuery(Model):
    page: int | None = Field(default=None, ge=1)
    limit: int | None = Field(default=None, ge=1, le=100)
    cursor: str | None = None
    list_id: str | None = None
    tag: str | None = None
    status: Literal["active", "unsubscribed", "bounced"] | None = None
    search: str | None = None


class ExportQuery(Model):
    format: Literal["csv", "json"] | None = None
    list_id: str | None = None
    fields: str | None = Field(default=None, description="Comma-separated column names")
    status: Literal["active", "unsubscribed", "bounced"] | None = None


class ContactDeleted(View):
    id: str
    deleted: bool


class ImportError_(View):
    line: int
    error: str


class ImportColumn(View):
    column: str
    #: email | first_name | last_name | phone | tags | status | name | attributes | custom:<key> | ignored
    field: str


class ImportMapping(View):
    """How the file's columns were read (issue 34): ``platform`` mailchimp | sendgrid | listmonk | generic."""
    platform: str
    file_status: str | None = None
    columns: list[ImportColumn]
    custom_fields: list[str]
    ignored: list[str]
    #: more columns than shown (120)
    truncated: bool = False


class ImportResult(View):
    imported: int
    updated: int
    skipped: int
    errors: list[ImportError_]
    dry_run: bool = False
    mapping: ImportMapping
    #: dry_run only: rows that would be imported or merged, and their statuses
    valid: int | None = None
    statuses: dict[str, int] | None = None


class ImportJobIn(Model):
    """Body of ``POST /contacts/imports`` (validated: a wrong type is a 422, never a 500)."""
    model_config = ConfigDict(extra="forbid")

    list_id: str | None = Field(default=None, max_length=100)
    tags: list[str] | str | None = Field(default=None, description="Comma-separated string or array of tags")
    update_existing: bool | Literal["true", "false", "1", "0", "yes", "no", "on", "off", ""] = False

    _tags = field_validator("tags")(classmethod(lambda cls, v: v if v is None or isinstance(v, str) else clean_tags(v)))


class ImportJob(View):
    job_id: str
    status: str
    processed: int
    total: int | None = None
    progress: float
    imported: int
    updated: int
    skipped: int
    errors: list[ImportError_]
    list_id: str | None = None
    tags: list[str]
    update_existing: bool
    created_at: str
    started_at: str | None = None
    finished_at: str | None = None
    failure: str | None = None
    #: the last transient failure reading the upload (S3), while the job is retried
    last_error: str | None = None
    read_failures: int = 0
    #: the column mapping, once the worker has read the file's header
    mapping: ImportMapping | None = None


class UploadForm(View):
    method: str
    url: str
    fields: dict[str, str]
    max_bytes: int
    expires_in: int


class ImportJobStarted(ImportJob):
    upload: UploadForm


class ExportLink(View):
    url: str
    format: str
    count: int
    bytes: int
    filename: str
    expires_in: int


class ExportJob(View):
    """An asynchronous export (``GET /contacts/exports/{job_id}``)."""
    job_id: str
    status: Literal["queued", "running", "completed", "failed"]
    format: str
    fields: list[str]
    list_id: str | None = None
    status_filter: str | None = None
    filename: str
    processed: int
    total: int | None = None
    progress: float
    created_at: str
    started_at: str | None = None
    finished_at: str | None = None
    failure: str | None = None
    status_url: str
    url: str | None = Field(default=None, description="Presigned download URL (once completed)")
    expires_in: int | None = None


class ExportJobStarted(ExportJob):
    """202 answer of ``GET /contacts/export`` above ``export_inline_max_rows``: ``url`` is the
    presigned GET of the object the job will write (valid ``expires_in`` seconds)."""
    url: str
    expires_in: int
