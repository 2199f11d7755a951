"""Query and response models of the analytics routes (answers are built from counters and dumped
through these models, issue 35)."""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field

from lambdakit.model import Model

from ..campaign.views import ABResults, StatsCounts
from ..common.view import View

DATE = r"^\d{4}-\d{2}-\d{2}$"
#: How many links ``top_links`` shows (the most clicked).
TOP_LINKS = 10


class RangeQuery(Model):
    start_date: Optional[str] = Field(default=None, pattern=DATE, description="YYYY-MM-DD (default: 30 days ago)")
    end_date: Optional[str] = Field(default=None, pattern=DATE, description="YYYY-MM-DD (default: today)")


class CampaignAnalyticsQuery(RangeQuery):
    timeframe: Optional[Literal["last_7_days", "last_30_days", "custom"]] = None


class OverallQuery(Model):
    start_date: str = Field(pattern=DATE)
    end_date: str = Field(pattern=DATE)
    group_by: Optional[Literal["day", "week", "month"]] = None


class Period(View):
    start: str
    end: str


class Totals(StatsCounts):
    """The campaign's counters since it was created."""
    total_opens: int
    total_clicks: int
    machine_opens: int
    complained: int


class Rates(View):
    """In % of: delivered (open, click, unsubscribe), sent (bounce, delivery), opened (click to open)."""
    open_rate: float
    click_rate: float
    bounce_rate: float
    delivery_rate: float
    click_to_open_rate: float
    unsubscribe_rate: float


class PeriodTotals(View):
    """Day counters summed over the period (the series' fields, in this order)."""
    sent: int
    delivered: int
    opened: int
    unique_opened: int
    clicked: int
    unique_clicked: int
    bounced: int
    unsubscribed: int
    machine_opened: int


class SeriesDay(PeriodTotals):
    date: str


class TopLink(View):
    url: Optional[str] = None
    clicks: int
    unique_clicks: int


class CampaignAnalytics(View):
    campaign_id: str
    name: Optional[str] = None
    status: Optional[str] = None
    timeframe: str
    period: Period
    totals: Totals
    rates: Rates
    period_totals: PeriodTotals
    series: list[SeriesDay]
    top_links: list[TopLink] = Field(description=f"The {TOP_LINKS} most clicked links")
    ab_results: Optional[ABResults] = Field(default=None, description="Present for an A/B test")


class Summary(View):
    campaigns_sent: int
    total_emails_sent: int
    total_delivered: int
    total_opened: int
    total_clicked: int
    total_bounced: int
    total_unsubscribed: int
    delivery_rate: float
    open_rate: float
    click_rate: float


class Trend(View):
    date: str
    sent: int
    opened: int
    clicked: int


class TopCampaign(View):
    id: str
    name: Optional[str] = None
    open_rate: float
    click_rate: float


class Overall(View):
    period: Period
    summary: Summary
    trends: list[Trend]
    top_campaigns: list[TopCampaign]


class ProviderRow(View):
    provider: str
    sent: int
    delivered: int
    bounced: int
    complained: int
    failed: int
    opened: int
    clicked: int
    delivery_rate: float
    bounce_rate: float
    open_rate: float


class Providers(View):
    period: Period
    providers: list[ProviderRow]


class CityRow(View):
    city: str
    opens: int
    clicks: int


class CountryRow(View):
    country: str
    opens: int
    clicks: int
    share: float
    cities: list[CityRow]


class Geographic(View):
    period: Period
    total_opens: int
    countries: list[CountryRow]


class DeviceRow(View):
    name: str
    opens: int
    clicks: int
    share: float


class Devices(View):
    period: Period
    device_types: list[DeviceRow]
    operating_systems: list[DeviceRow]
    clients: list[DeviceRow]
