"""Bodies of the admin engagement routes."""
from __future__ import annotations

from pydantic import ConfigDict, Field, field_validator

from lambdakit.model import Model

from ..mail.templates import ALL_KINDS


class EmailAction(Model):
    model_config = ConfigDict(extra="ignore")
    emailId: str = Field(min_length=1, max_length=64)


class JobsRefresh(Model):
    model_config = ConfigDict(extra="ignore")
    query: str = Field(min_length=1, max_length=100)


class TestEmail(Model):
    model_config = ConfigDict(extra="ignore")
    template: str
    to: str | None = None

    @field_validator("template")
    @classmethod
    def _tpl(cls, v):
        if v not in ALL_KINDS:
            raise ValueError("template must be one of " + ", ".join(ALL_KINDS[:12]))
        return v

    @field_validator("to", mode="before")
    @classmethod
    def _to(cls, v):
        if v in (None, ""):
            return None
        from ..forms.models import normalise_email

        return normalise_email(v)


# ---------------------------------------------------------------- OpenAPI: queries and responses (round 2)
from typing import Literal, Optional  # noqa: E402

from ..admin_common.schemas import Ok, Open, PageQuery  # noqa: E402
from ..announcements.models import Announcement  # noqa: E402


class AnnouncementOut(Ok):
    announcement: Announcement


class AnnouncementDeleted(Ok):
    id: str
    deleted: bool


class AdminJob(Open):
    id: str
    title: str
    company: str
    location: str
    url: str
    source: Optional[str] = None
    postedAt: Optional[str] = None
    fetchedAt: Optional[str] = None


class JobsDeleteQuery(Model):
    model_config = ConfigDict(defer_build=True)

    jobId: str = Field("", max_length=200)
    olderThanDays: int = Field(0, ge=0, le=3650)
    all: Literal["", "true", "false", "1", "0"] = ""


class JobsDeleted(Ok):
    deleted: int
    more: bool


class FetchOut(Ok):
    added: int
    updated: int
    sources: int
    errors: list[dict]


class EmailQueueQuery(PageQuery):
    status: Literal["", "pending", "sending", "sent", "failed", "cancelled"] = ""
    templateType: str = ""
    startDate: str = Field("", description="YYYY-MM-DD (creation day, inclusive)")
    endDate: str = Field("", description="YYYY-MM-DD (creation day, inclusive)")


class QueuedEmail(Open):
    id: str
    templateType: str
    to: str
    status: str
    attempts: int
    createdAt: str


class EmailOut(Ok):
    email: QueuedEmail


class EmailStats(Ok):
    total: int
    deliveryRate: float
    openRate: float
    byTemplate: dict
    last7Days: list[dict]


class TestEmailOut(Ok):
    emailId: str
    template: str
    to: str
    message: str


