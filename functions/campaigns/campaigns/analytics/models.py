"""Query and response shapes of the analytics routes (documentation; answers are built from counters)."""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import ConfigDict, Field

from lambdakit.model import Model

DATE = r"^\d{4}-\d{2}-\d{2}$"


class RangeQuery(Model):
    start_date: Optional[str] = Field(default=None, pattern=DATE, description="YYYY-MM-DD (default: 30 days ago)")
    end_date: Optional[str] = Field(default=None, pattern=DATE, description="YYYY-MM-DD (default: today)")


class CampaignAnalyticsQuery(RangeQuery):
    timeframe: Optional[Literal["last_7_days", "last_30_days", "custom"]] = None


class OverallQuery(Model):
    start_date: str = Field(pattern=DATE)
    end_date: str = Field(pattern=DATE)
    group_by: Optional[Literal["day", "week", "month"]] = None


class Period(Model):
    start: str
    end: str


class _Open(Model):
    model_config = ConfigDict(extra="allow")


class CampaignAnalytics(Model):
    model_config = ConfigDict(extra="allow")
    campaign_id: str
    name: Optional[str] = None
    status: Optional[str] = None
    timeframe: str
    period: Period
    totals: dict[str, int]
    rates: dict[str, float]
    period_totals: dict[str, int]
    series: list[dict[str, str | int]]
    top_links: list[_Open]


class Summary(Model):
    model_config = ConfigDict(extra="allow")
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


class Trend(Model):
    date: str
    sent: int
    opened: int
    clicked: int


class TopCampaign(Model):
    id: str
    name: Optional[str] = None
    open_rate: float
    click_rate: float


class Overall(Model):
    period: Period
    summary: Summary
    trends: list[Trend]
    top_campaigns: list[TopCampaign]


class ProviderRow(Model):
    model_config = ConfigDict(extra="allow")
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


class Providers(Model):
    period: Period
    providers: list[ProviderRow]


class CityRow(Model):
    model_config = ConfigDict(extra="allow")
    city: str
    opens: int
    clicks: int


class CountryRow(Model):
    model_config = ConfigDict(extra="allow")
    country: str
    opens: int
    clicks: int
    share: float
    cities: list[CityRow]


class Geographic(Model):
    period: Period
    total_opens: int
    countries: list[CountryRow]


class DeviceRow(Model):
    name: str
    opens: int
    clicks: int
    share: float


class Devices(Model):
    period: Period
    device_types: list[DeviceRow]
    operating_systems: list[DeviceRow]
    clients: list[DeviceRow]
