from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, field_validator

from lambdakit.model import Model
from lambdakit.validated import FreeDict, WebUrl

from ..common.headers import HeaderText
from ..common.view import View
from .views import TemplateOut as TemplateOut  # re-exported: the routes' documentation names it here

NAME_RE = r"^[A-Za-z_][A-Za-z0-9_.\-]*$"


class _Base(Model):
    model_config = ConfigDict(extra="forbid")

    category: str | None = Field(default=None, max_length=100)
    variables: list[str] | None = Field(default=None, max_length=200)
    preview_url: WebUrl | None = Field(default=None, max_length=2048)
    type: Literal["html", "text"] | None = None

    @field_validator("variables")
    @classmethod
    def _vars(cls, v):
        if v is None:
            return v
        import re

        for x in v:
            if not isinstance(x, str) or not re.match(NAME_RE, x):
                raise ValueError("variable names are letters, digits, _, - and .")
        return list(dict.fromkeys(v))


class TemplateIn(_Base):
    name: str = Field(min_length=1, max_length=200)
    subject: HeaderText = Field(min_length=1, max_length=998)
    content: str = Field(min_length=1, max_length=400_000, description="At most 400,000 characters, and the stored template at most 400 KB in UTF-8 (DynamoDB's item limit): larger is 413 PAYLOAD_TOO_LARGE naming content.")


class TemplatePatch(_Base):
    name: str | None = Field(default=None, min_length=1, max_length=200)
    subject: HeaderText | None = Field(default=None, min_length=1, max_length=998)
    content: str | None = Field(default=None, min_length=1, max_length=400_000, description="At most 400,000 characters, and the stored template at most 400 KB in UTF-8 (DynamoDB's item limit): larger is 413 PAYLOAD_TOO_LARGE naming content.")


class PreviewIn(Model):
    model_config = ConfigDict(extra="forbid")

    variables: FreeDict = Field(default_factory=dict)


class Preview(View):
    subject: str
    html: str
    text: str
    missing_variables: list[str]


class TemplateDeleted(View):
    id: str
    deleted: bool
