from __future__ import annotations

from typing import Literal, Optional

from pydantic import ConfigDict, EmailStr, Field, StrictBool, StrictInt, field_validator

from lambdakit.model import Model
from lambdakit.validated import FreeDict

from ..accounts import phones

#: The highest per-student cap on open enrollments an admin may set (null: no cap).
MAX_ENROLLMENTS_CAP = 50


class SiteSettingsUpdate(Model):
    model_config = ConfigDict(extra="forbid")

    siteName: Optional[str] = Field(None, min_length=1, max_length=200)
    siteEmail: Optional[EmailStr] = None
    sitePhone: Optional[str] = Field(None, max_length=phones.MAX_INPUT,
                                     description=phones.DESCRIPTION + ' "" clears it.')
    siteAddress: Optional[str] = Field(None, max_length=500)
    maintenanceMode: Optional[StrictBool] = None
    maxEnrollmentsPerStudent: Optional[StrictInt] = Field(None, ge=1, le=MAX_ENROLLMENTS_CAP,
                                                          description=f"1-{MAX_ENROLLMENTS_CAP}; null removes the cap")

    @field_validator("siteName", "sitePhone", "siteAddress")
    @classmethod
    def _strip(cls, v):
        return v.strip() if isinstance(v, str) else v

    @field_validator("sitePhone")
    @classmethod
    def _phone(cls, v):
        """The service's one phone rule (E.164); ``""`` clears it, null is refused like every setting."""
        return v if v is None else phones.optional(v) or ""

    @field_validator("siteName", "siteEmail", "sitePhone", "siteAddress", "maintenanceMode")
    @classmethod
    def _not_null(cls, v):  # maxEnrollmentsPerStudent: null removes the cap (its default)
        if v is None:
            raise ValueError("must not be null")
        return v


class SiteSettings(Model):
    siteName: str
    siteEmail: str
    sitePhone: str
    siteAddress: str
    maintenanceMode: bool
    maxEnrollmentsPerStudent: Optional[int] = Field(None, description="null: no cap")


class ExportRequest(Model):
    model_config = ConfigDict(extra="forbid")

    entity: Literal["users", "enrollments", "certificates", "domains"]
    filters: FreeDict = Field(default_factory=dict)
    format: Literal["csv"] = "csv"
    delivery: Literal["auto", "direct", "s3"] = "auto"


# ---------------------------------------------------------------- OpenAPI: queries and responses (round 2)
from ..admin_common.schemas import Ok, Out  # noqa: E402


class SettingsOut(Ok):
    settings: SiteSettings


class AnalyticsQuery(Model):
    model_config = ConfigDict(defer_build=True)

    type: Literal["platform", "domains"] = "platform"


class _Total(Out):
    total: int


class UserCounts(_Total):
    byRole: dict[str, int] = Field(description="per role")


class EnrollmentCounts(_Total):
    byStatus: dict[str, int] = Field(description="per enrollment status")


class LeadCounts(_Total):
    byStatus: dict[str, int] = Field(description="per lead status")


class Revenue(Out):
    total: float
    currency: str


class CertificateCounts(Out):
    issued: int
    revoked: int


class InvoiceCounts(Out):
    issued: int


class VisitorCounts(_Total):
    today: int


class PlatformAnalytics(Out):
    """``type=platform``."""
    users: UserCounts
    enrollments: EnrollmentCounts
    revenue: Revenue
    certificates: CertificateCounts
    invoices: InvoiceCounts
    domains: _Total
    milestones: dict[str, int] = Field(description="milestones per status")
    leads: LeadCounts
    visitors: VisitorCounts


class DomainRow(Out):
    domainId: str
    name: Optional[str] = None
    slug: Optional[str] = None
    isActive: bool
    enrollments: int
    active: int
    completed: int
    completionRate: float
    revenue: float


class DomainsAnalytics(Out):
    """``type=domains``: one row per domain, most enrollments first."""
    domains: list[DomainRow]


class AnalyticsOut(Ok):
    type: Literal["platform", "domains"]
    data: PlatformAnalytics | DomainsAnalytics
    cacheAge: int


class Tile(Out):
    key: str
    label: str
    value: float | int
    unit: Optional[str] = None
    sample: Optional[int] = Field(None, description="averageCompletionTime: completed enrollments averaged")


class EngagementOut(Ok):
    tiles: list[Tile]


class FunnelStage(Out):
    stage: str
    count: int
    rateFromPrevious: Optional[float] = None
    rateFromTop: Optional[float] = None


class ConversionOut(Ok):
    visitors: int
    signups: int
    enrollments: int
    completions: int
    funnel: list[FunnelStage]


class ExportLink(Ok):
    """``delivery: s3`` (or a large ``auto`` export). Small exports answer ``200 text/csv`` instead."""
    mode: Literal["s3"]
    url: str
    expiresAt: str
    rows: int
    filename: str
