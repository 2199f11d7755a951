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

from ..admin_common.schemas import Ok, Page, PageQuery  # noqa: E402
from ..admin_common.schemas import Out as _Out  # noqa: E402
from ..announcements.models import Announcement  # noqa: E402
from ..jobs.models import Job  # noqa: E402
from ..tasks.models import Accepted, FetchCounts, Task  # noqa: E402


class AnnouncementOut(Ok):
    announcement: Announcement


class AnnouncementDeleted(Ok):
    id: str
    deleted: bool






class AdminJobsPage(Page):
    """``page``/``limit``/``total``/``pages`` and, per source that holds jobs, how many."""
    jobs: list[Job]
    sources: dict[str, int] = Field(description="jobs per source (``api:<host>``, ``rss:<host>``)")


#: 100 years: older cut-offs name dates before year 1 (and mean nothing for job postings).
MAX_OLDER_THAN_DAYS = 36_500


class JobsDeleteQuery(Model):
    model_config = ConfigDict(defer_build=True)

    jobId: str = Field("", max_length=200)
    olderThanDays: int = Field(0, ge=0, le=MAX_OLDER_THAN_DAYS,
                               description=f"delete jobs fetched more than this many days ago (0..{MAX_OLDER_THAN_DAYS})")
    all: Literal["", "true", "false", "1", "0"] = ""


class JobsDeleted(Ok):
    deleted: int
    more: bool


class FetchOut(Ok, FetchCounts):
    """What a fetch did (all of it, or the part done before it went on as a task)."""


class FetchAccepted(Accepted, FetchCounts):
    """202: the fetch goes on as a task; the counts so far."""
    success: bool


class JobsTaskStatus(Task, FetchCounts):
    """``GET /api/admin/tasks/{taskId}``: a jobs fetch task and its counts so far."""


class EmailQueueQuery(PageQuery):
    status: Literal["", "pending", "sending", "sent", "failed", "cancelled"] = ""
    templateType: str = ""
    startDate: str = Field("", description="YYYY-MM-DD (creation day, inclusive)")
    endDate: str = Field("", description="YYYY-MM-DD (creation day, inclusive)")


class QueuedEmail(_Out):
    id: str
    templateType: str
    to: str
    status: str
    subject: Optional[str] = None
    attempts: int
    lastError: Optional[str] = None
    createdAt: str
    updatedAt: Optional[str] = None
    sentAt: Optional[str] = None
    nextAttemptAt: Optional[str] = Field(None, description="set while pending")
    openedAt: Optional[str] = None
    openCount: int = 0
    userId: Optional[str] = None


class EmailOut(Ok):
    email: QueuedEmail


class TemplateCounts(_Out):
    total: int
    sent: int
    failed: int
    opened: int


class DayCounts(_Out):
    date: str
    queued: int
    sent: int
    failed: int
    opened: int


class EmailStats(Ok):
    provider: str
    total: int
    pending: int
    sending: int
    sent: int
    failed: int
    cancelled: int
    opened: int
    deliveryRate: float = Field(description="percent of queued emails sent")
    openRate: float = Field(description="percent of sent emails opened")
    byTemplate: dict[str, TemplateCounts] = Field(description="per template kind that has emails")
    last7Days: list[DayCounts]


class TestEmailOut(Ok):
    emailId: str
    template: str
    to: str
    message: str
