from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Optional

from pydantic import ConfigDict, Field, StrictBool

from lambdakit import objectkeys
from lambdakit.model import Model
from lambdakit.validated import WebUrl

from ..documents.layout import CertificateLayout


class TemplateCreate(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    name: str = Field(min_length=1, max_length=120)
    description: str = Field("", max_length=1000)
    layout: CertificateLayout = Field(default_factory=CertificateLayout)
    is_active: StrictBool = False


class TemplateUpdate(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    name: Optional[str] = Field(None, min_length=1, max_length=120)
    description: Optional[str] = Field(None, max_length=1000)
    layout: Optional[CertificateLayout] = None
    is_active: Optional[StrictBool] = None


class EnrollmentUpdate(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    status: Optional[Literal["pending", "active", "completed", "cancelled"]] = None
    admin_notes: Optional[str] = Field(None, max_length=5000)
    submission_email: Optional[str] = Field(None, max_length=254)


class SubmissionDecision(Model):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    remarks: str = Field("", max_length=5000)


#: a client-named key of the files bucket: shape checked here, provenance in ``resources`` (lambdakit.objectkeys)
if TYPE_CHECKING:
    ResourceKey = str
else:
    ResourceKey = objectkeys.key_type("resources/")

ResourceType = Literal["video", "article", "document", "link", "file", "assignment"]


class ResourceIn(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    domain_id: str = Field(min_length=1, max_length=64)
    week: int = Field(ge=1, le=52)
    position: int = Field(0, ge=0, le=9999)
    title: str = Field(min_length=1, max_length=200)
    description: str = Field("", max_length=5000)
    resource_type: ResourceType = "link"
    url: Optional[WebUrl] = Field(None, max_length=2000)
    file_key: Optional[ResourceKey] = Field(None, max_length=500)
    is_active: StrictBool = True


class ResourcePatch(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    domain_id: Optional[str] = Field(None, min_length=1, max_length=64)
    week: Optional[int] = Field(None, ge=1, le=52)
    position: Optional[int] = Field(None, ge=0, le=9999)
    title: Optional[str] = Field(None, min_length=1, max_length=200)
    description: Optional[str] = Field(None, max_length=5000)
    resource_type: Optional[ResourceType] = None
    url: Optional[WebUrl] = Field(None, max_length=2000)
    file_key: Optional[ResourceKey] = Field(None, max_length=500)
    is_active: Optional[StrictBool] = None


class SignRequest(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    filename: str = Field(min_length=1, max_length=200)
    content_type: str = Field(min_length=3, max_length=100)
    resource_type: ResourceType = "file"


class CertificateAction(Model):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    reason: Optional[str] = Field(None, max_length=1000)


class InvoiceSend(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    to: Optional[str] = Field(None, min_length=3, max_length=254, pattern=r"^[^@\s,;<>]+@[^@\s,;<>]+\.[^@\s,;<>]+$")


# ---------------------------------------------------------------- OpenAPI: queries and responses (round 2)
from ..admin_common.schemas import DateRange, ListQuery, Message, Ok, Open  # noqa: E402


class EnrollmentsQuery(ListQuery):
    status: str = Field("", description="pending|active|completed|cancelled")
    search: str = Field("", max_length=200, description="student name/email, domain, id, coupon")
    domain_id: str = ""
    payment_status: str = ""


class AdminEnrollment(Open):
    id: str
    user_id: str
    domain_id: str
    status: str
    created_at: str


class EnrollmentDetail(AdminEnrollment):
    milestones: list[dict]
    progress: dict


class EnrollmentOut(Ok):
    enrollment: AdminEnrollment


class EnrollmentDetailOut(Ok):
    enrollment: EnrollmentDetail


class RepairOut(Ok):
    created: int
    existing: int
    total: int
    milestones: list[dict]


class SubmissionsQuery(ListQuery):
    status: str = Field("", description="submitted|approved|rejected")
    search: str = Field("", max_length=200)


class MilestoneSubmissionsQuery(ListQuery):
    status: str = Field("", description="submitted|reviewed|rejected|pending; empty: submitted, reviewed and "
                                        "rejected together, newest first")
    enrollment_id: str = ""


class Milestone(Open):
    id: str
    enrollment_id: str
    order: int
    status: str


class DecisionOut(Ok):
    enrollmentId: str
    project_status: str
    remarks: Optional[str] = None
    completed: bool


class ResourcesQuery(ListQuery):
    domain_id: str = ""
    week: int = Field(0, ge=0, le=52, description="0 = every week")
    resource_type: str = ""


class Resource(Open):
    id: str
    domain_id: str
    week: int
    title: str
    resource_type: str


class ResourceOut(Ok):
    resource: Resource


class UploadOut(Ok):
    key: str
    file_key: str
    contentType: str
    size: int
    resource_type: str
    url: str


class SignOut(Ok):
    uploadUrl: str
    method: Literal["PUT"]
    headers: dict[str, str]
    key: str
    file_key: str
    expiresIn: int


class CertTemplate(Open):
    id: str
    name: str
    layout: dict
    is_active: bool


class TemplateOut(Ok):
    template: CertTemplate


class CertificatesQuery(ListQuery):
    search: str = Field("", max_length=200)
    revoked: Literal["", "true", "false"] = ""
    domain_id: str = ""


class Certificate(Open):
    certificate_id: str
    enrollment_id: str
    user_id: str
    revoked: bool


class CertificateOut(Ok):
    certificate: Certificate


class InvoicesQuery(ListQuery, DateRange):
    search: str = Field("", max_length=200)
    user_id: str = ""


class Invoice(Open):
    id: str
    number: str
    enrollment_id: str
    user_id: str


class InvoiceSendOut(Ok):
    emailId: str
    to: str
    invoiceId: str


Deleted = Message  # {success, message}
