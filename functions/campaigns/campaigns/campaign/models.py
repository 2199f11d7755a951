"""Request bodies of /campaigns (the answers: ``views``)."""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import ConfigDict, Field, field_validator, model_validator

from lambdakit import clock
from lambdakit.model import Model

from ..common.fielderror import field_error
from ..common.headers import HeaderText
from ..sending.fields import Email, ProviderConfig
from .repository import STATUSES  # noqa: F401  (the lifecycle's states live with the store)
from .views import CampaignFields


class Audience(Model):
    model_config = ConfigDict(extra="ignore")
    type: Literal["list", "test"] = "list"
    list_id: Optional[str] = Field(default=None, max_length=100)
    segment_id: Optional[str] = None
    test_emails: list[Email] = Field(default_factory=list, max_length=100)

    @model_validator(mode="after")
    def _check(self):
        if self.type == "list" and not self.list_id:
            raise field_error("Audience", "list_id", "list_id is required when audience.type is list")
        if self.type == "test" and not self.test_emails:
            raise field_error("Audience", "test_emails", "test_emails is required when audience.type is test")
        return self


class Schedule(Model):
    model_config = ConfigDict(extra="ignore")
    type: Literal["immediate", "scheduled"] = "immediate"
    date: Optional[str] = None

    @field_validator("date")
    @classmethod
    def _date(cls, v):
        if v is None:
            return v
        try:
            return clock.iso(clock.parse_iso(v))
        except (ValueError, TypeError):
            raise ValueError("date must be an ISO 8601 timestamp") from None

    @model_validator(mode="after")
    def _check(self):
        if self.type == "scheduled" and not self.date:
            raise field_error("Schedule", "date", "date is required when schedule.type is scheduled")
        return self


class Utm(Model):
    model_config = ConfigDict(extra="ignore")
    source: Optional[str] = Field(default=None, max_length=200)
    medium: Optional[str] = Field(default=None, max_length=200)
    campaign: Optional[str] = Field(default=None, max_length=200)


class Tracking(Model):
    model_config = ConfigDict(extra="ignore")
    track_opens: bool = True
    track_clicks: bool = True
    utm_params: Utm = Field(default_factory=Utm)


class Settings(Model):
    model_config = ConfigDict(extra="ignore")
    from_email: Optional[Email] = None
    from_name: Optional[HeaderText] = Field(default=None, max_length=200)
    reply_to: Optional[Email] = None
    send_test: bool = False
    skip_actual_send: bool = False
    provider: Optional[ProviderConfig] = None


class Variation(Model):
    model_config = ConfigDict(extra="ignore")
    subject: HeaderText = Field(min_length=1, max_length=998)


class ABTest(Model):
    model_config = ConfigDict(extra="ignore")
    test_type: Literal["subject_line"] = "subject_line"
    variations: list[Variation] = Field(min_length=2, max_length=5)
    test_size: int = Field(ge=1, le=100)
    winner_criteria: Literal["highest_open_rate"] = "highest_open_rate"
    test_duration_hours: int = Field(ge=1, le=720)


class CampaignBody(CampaignFields):
    """POST and PUT body; on PUT only the fields present are changed (``notes`` and the other fields
    every view shows: ``views.CampaignFields``)."""
    model_config = ConfigDict(extra="ignore")
    name: Optional[str] = Field(default=None, min_length=1, max_length=200)
    subject: Optional[HeaderText] = Field(default=None, max_length=998)
    preview_text: Optional[str] = Field(default=None, max_length=500)
    content: Optional[str] = Field(default=None, max_length=350_000)
    template_id: Optional[str] = Field(default=None, max_length=100)
    audience: Optional[Audience] = None
    schedule: Optional[Schedule] = None
    tracking: Optional[Tracking] = None
    settings: Optional[Settings] = None
    ab_test: Optional[ABTest] = None


class CampaignCreate(CampaignBody):
    name: str = Field(min_length=1, max_length=200)


class SendRequest(Model):
    model_config = ConfigDict(extra="ignore")
    confirm: Optional[bool] = None
    send_test: bool = False
    test_emails: list[Email] = Field(default_factory=list, max_length=20)

    @model_validator(mode="after")
    def _check(self):
        if self.send_test and not self.test_emails:
            raise field_error("SendRequest", "test_emails", "test_emails is required when send_test is true")
        return self


# ---------------------------------------------------------------- documentation models (OpenAPI)
class CampaignsQuery(Model):
    page: Optional[int] = Field(default=None, ge=1)
    limit: Optional[int] = Field(default=None, ge=1, le=100)
    status: Optional[Literal["draft", "scheduled", "sending", "sent", "cancelled"]] = None
    search: Optional[str] = None
