"""What the /campaigns routes answer (issue 35): one model per answer, dumped by
``lambdakit.responses``. Apart from the request bodies (``models``), so a read route defines only
these (issue 21). A field a client writes and every campaign view shows is declared once, on
``CampaignFields``: the request body (``models.CampaignBody``) and every view inherit it.
"""
from __future__ import annotations

from typing import Optional

from pydantic import Field

from lambdakit.model import Model

from ..common.view import View

#: Longest ``notes`` (characters).
MAX_NOTES = 2_000


class CampaignFields(Model):
    """Fields of a campaign that the request body takes and the create, update, get and list
    answers show once set (absent until then; ``pick``)."""
    notes: Optional[str] = Field(default=None, max_length=MAX_NOTES, description=(
        f"Internal notes for the account's users (plain text, several lines, at most {MAX_NOTES} characters); "
        "shown by the campaign routes, never put in a mail"))


def pick(view: type[Model], item: dict) -> dict:
    """The stored campaign ``item``'s values of ``view``'s fields: a field not stored is ``null``,
    except the ``CampaignFields``, absent until set (the answer's model drops every other key)."""
    later = CampaignFields.model_fields
    return {k: item.get(k) for k in view.model_fields if k not in later or item.get(k) is not None}


# ---------------------------------------------------------------- stats
class StatsCounts(View):
    """The campaign's counters (list)."""
    sent: int
    delivered: int
    opened: int
    clicked: int
    bounced: int
    unsubscribed: int


class StatsRates(StatsCounts):
    """Counters and rates in % (cancel): opened and clicked of delivered, bounced of sent."""
    open_rate: float
    click_rate: float
    bounce_rate: float


class StatsDetail(StatsRates):
    """Counters, rates and totals (get, update)."""
    total_opens: int = Field(description="Every open, repeated ones included")
    total_clicks: int = Field(description="Every click, repeated ones included")
    machine_opens: int = Field(description="Opens by mail-privacy proxies and scanners (not in opened)")
    complained: int
    failed: int


# ---------------------------------------------------------------- the stored campaign's objects
class AudienceOut(View):
    type: str = "list"
    list_id: Optional[str] = None
    segment_id: Optional[str] = None
    test_emails: list[str] = Field(default_factory=list)


class ScheduleOut(View):
    type: str = "immediate"
    date: Optional[str] = None


class UtmOut(View):
    source: Optional[str] = None
    medium: Optional[str] = None
    campaign: Optional[str] = None


class TrackingOut(View):
    track_opens: bool = True
    track_clicks: bool = True
    utm_params: UtmOut = Field(default_factory=UtmOut)


class ProviderOut(View):
    provider: str = "sandbox"
    from_email: Optional[str] = None
    from_name: Optional[str] = None


class SettingsOut(View):
    from_email: Optional[str] = None
    from_name: Optional[str] = None
    reply_to: Optional[str] = None
    send_test: bool = False
    skip_actual_send: bool = False
    provider: Optional[ProviderOut] = None


class VariationOut(View):
    subject: str


class ABTestOut(View):
    test_type: str = "subject_line"
    variations: list[VariationOut]
    test_size: int
    winner_criteria: str = "highest_open_rate"
    test_duration_hours: int


class Progress(View):
    """A campaign's sending progress (once its sending started)."""
    recipients_queued: int
    batches_queued: int
    batches_done: int
    fanout_done: bool
    phase: Optional[str] = None


class VariationResult(View):
    index: int
    subject: str
    sent: int
    opened: int
    open_rate: float


class ABResults(View):
    winner: Optional[int] = Field(default=None, description="Index of the winning variation once decided")
    decide_at: Optional[str] = None
    variations: list[VariationResult]


# ---------------------------------------------------------------- answers
class CampaignCreated(View, CampaignFields):
    id: str
    name: str
    status: str
    created_at: str


class CampaignSummary(View, CampaignFields):
    id: str
    name: Optional[str] = None
    status: Optional[str] = None
    subject: Optional[str] = None
    sent_at: Optional[str] = None
    stats: StatsCounts
    created_at: Optional[str] = None


class CampaignStored(View, CampaignFields):
    """The stored campaign as its account sees it (each field ``null`` until set)."""
    id: str
    name: str
    subject: Optional[str] = None
    preview_text: Optional[str] = None
    content: Optional[str] = None
    template_id: Optional[str] = None
    audience: Optional[AudienceOut] = None
    schedule: Optional[ScheduleOut] = None
    tracking: Optional[TrackingOut] = None
    settings: Optional[SettingsOut] = None
    ab_test: Optional[ABTestOut] = None
    status: str
    scheduled_for: Optional[str] = None
    estimated_recipients: Optional[int] = None
    sent_at: Optional[str] = None
    cancelled_at: Optional[str] = None
    created_at: str
    updated_at: Optional[str] = None


class CampaignOut(CampaignStored):
    """The stored campaign with stats, rates and totals; ``progress`` once sending started,
    ``ab_results`` for A/B tests, ``compliance_warnings`` on GET."""
    stats: StatsDetail
    progress: Optional[Progress] = Field(default=None, description="Present once sending started")
    ab_results: Optional[ABResults] = Field(default=None, description="Present for an A/B test")
    compliance_warnings: list[str] = Field(default_factory=list, description=(
        "GET /campaigns/{id} only: postal_address_missing while the account has no postal address "
        "(PUT /account); the campaign still sends, its footer without the address"))


class TestSendResult(View):
    __test__ = False  # not a pytest class
    email: str
    status: str
    message_id: Optional[str] = None


class SendResult(View):
    """Scheduling: ``status`` scheduled, ``scheduled_for``, ``estimated_recipients``. Test send
    (``test: true``): the unchanged status, ``scheduled_for`` = ``sent_at`` (sent now),
    ``estimated_recipients`` = the distinct test addresses, ``test_emails`` and per-address ``results``."""
    campaign_id: str
    status: str
    scheduled_for: Optional[str] = None
    estimated_recipients: Optional[int] = None
    test: bool = Field(default=False, description="Present (true) on a test send only")
    test_emails: list[str] = Field(default_factory=list, description="Test send only")
    sent_at: Optional[str] = Field(default=None, description="Test send only")
    results: list[TestSendResult] = Field(default_factory=list, description="Test send only")


class Cancelled(View):
    campaign_id: str
    status: str
    cancelled_at: str
    previous_status: str
    stats: StatsRates
