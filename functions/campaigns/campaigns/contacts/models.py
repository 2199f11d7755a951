from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator

from lambdakit.model import Model

from ..common.emails import InvalidEmail, normalise_email

STATUSES = ("active", "unsubscribed", "bounced")
MAX_TAGS = 20
MAX_LISTS = 20
MAX_CUSTOM_FIELDS = 50


def clean_tags(v: Any) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list):
        raise ValueError("must be an array of strings")
    out: list[str] = []
    for t in v:
        if not isinstance(t, str):
            raise ValueError("must be an array of strings")
        t = t.strip()
        if not t:
            continue
        if len(t) > 64 or "#" in t:
            raise ValueError("tags are 1-64 characters without '#'")
        if t not in out:
            out.append(t)
    if len(out) > MAX_TAGS:
        raise ValueError(f"at most {MAX_TAGS} tags")
    return out


def clean_custom(v: Any) -> dict[str, str]:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise ValueError("must be an object of strings")
    out: dict[str, str] = {}
    for k, val in v.items():
        k = str(k).strip()
        if not k or len(k) > 64:
            raise ValueError("keys are 1-64 characters")
        if val is None:
            continue
        if isinstance(val, bool) or not isinstance(val, (str, int, float)):
            raise ValueError(f"value of {k!r} must be a string")
        s = str(val)
        if len(s) > 2000:
            raise ValueError(f"value of {k!r} is too long")
        out[k] = s
    if len(out) > MAX_CUSTOM_FIELDS:
        raise ValueError(f"at most {MAX_CUSTOM_FIELDS} custom fields")
    return out


def clean_lists(v: Any) -> list[str]:
    if v is None:
        return []
    if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
        raise ValueError("must be an array of list ids")
    out = list(dict.fromkeys(x.strip() for x in v))
    if len(out) > MAX_LISTS:
        raise ValueError(f"at most {MAX_LISTS} lists")
    return out


def clean_email(v: Any) -> str:
    try:
        return normalise_email(v)
    except InvalidEmail as exc:
        raise ValueError(str(exc)) from None


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


class ContactOut(Model):
    id: str
    email: str
    first_name: str = ""
    last_name: str = ""
    phone: str = ""
    tags: list[str] = []
    custom_fields: dict[str, str] = {}
    lists: list[str] = []
    status: str
    created_at: str
    updated_at: str


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


class ContactDeleted(Model):
    id: str
    deleted: bool


class ImportError_(Model):
    line: int
    error: str


class ImportResult(Model):
    imported: int
    updated: int
    skipped: int
    errors: list[ImportError_]


class ImportJobIn(Model):
    """Body of ``POST /contacts/imports`` (validated: a wrong type is a 422, never a 500)."""
    model_config = ConfigDict(extra="forbid")

    list_id: str | None = Field(default=None, max_length=100)
    tags: list[str] | str | None = Field(default=None, description="Comma-separated string or array of tags")
    update_existing: bool | Literal["true", "false", "1", "0", "yes", "no", "on", "off", ""] = False

    _tags = field_validator("tags")(classmethod(lambda cls, v: v if v is None or isinstance(v, str) else clean_tags(v)))


class ImportJob(Model):
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


class UploadForm(Model):
    method: str
    url: str
    fields: dict[str, str]
    max_bytes: int
    expires_in: int


class ImportJobStarted(ImportJob):
    upload: UploadForm


class ExportLink(Model):
    url: str
    format: str
    count: int
    bytes: int
    filename: str
    expires_in: int


class ExportJob(Model):
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
