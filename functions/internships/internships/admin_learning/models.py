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
#: Resources are filed under programme weeks 1..MAX_WEEK.
MAX_WEEK = 52


class ResourceIn(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    domain_id: str = Field(min_length=1, max_length=64)
    week: int = Field(ge=1, le=MAX_WEEK)
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
    week: Optional[int] = Field(None, ge=1, le=MAX_WEEK)
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
from ..admin_common.schemas import DateRange, ListQuery, Message, Ok, Out, Page  # noqa: E402


class EnrollmentsQuery(ListQuery):
    status: str = Field("", description="pending|active|completed|cancelled")
    search: str = Field("", max_length=200, description="student name/email, domain, id, coupon")
    domain_id: str = ""
    payment_status: str = ""


class PlanStep(Out):
    title: str
    description: Optional[str] = None


class AdminEnrollment(Out):
    """An enrollment as staff see it. Fields a state sets (payment, activation, cancellation,
    completion, the final-project submission) are absent until it is reached."""
    id: str
    user_id: str
    student_name: Optional[str] = None
    student_email: Optional[str] = None
    domain_id: str
    domain_name: Optional[str] = None
    domain_slug: Optional[str] = None
    plan: Optional[list[PlanStep]] = None
    duration: Optional[int] = None
    price: Optional[float] = None
    discount: Optional[float] = None
    amount: Optional[float] = None
    amount_paise: Optional[int] = None
    coupon_code: Optional[str] = None
    coupon_id: Optional[str] = None
    status: str
    payment_status: Optional[str] = None
    payment_source: Optional[str] = None
    gateway: Optional[str] = None
    order_id: Optional[str] = None
    payment_id: Optional[str] = None
    refund_required: Optional[bool] = None
    paid_at: Optional[str] = None
    activated_at: Optional[str] = None
    end_date: Optional[str] = None
    milestone_count: Optional[int] = None
    invoice_id: Optional[str] = None
    invoice_number: Optional[str] = None
    cancelled_at: Optional[str] = None
    completed_at: Optional[str] = None
    certificate_id: Optional[str] = None
    admin_notes: Optional[str] = None
    submission_email: Optional[str] = None
    submitted_at: Optional[str] = None
    project_status: Optional[str] = None
    submission_remarks: Optional[str] = None
    submission_reviewed_at: Optional[str] = None
    submission_reviewed_by: Optional[str] = None
    created_at: str
    updated_at: Optional[str] = None
    updated_by: Optional[str] = None


class EnrollmentMilestone(Out):
    """A stored milestone as the enrollment's admin routes show it."""
    id: str
    enrollment_id: str
    user_id: Optional[str] = None
    domain_id: Optional[str] = None
    order: int
    title: str
    description: Optional[str] = None
    status: str
    due_date: Optional[str] = None
    submission_notes: Optional[str] = None
    submission_url: Optional[str] = None
    submitted_at: Optional[str] = None
    remarks: Optional[str] = None
    reviewed_at: Optional[str] = None
    reviewed_by: Optional[str] = None
    repaired_at: Optional[str] = None
    created_at: Optional[str] = None
    updated_at: Optional[str] = None


class Progress(Out):
    total: int
    reviewed: int
    submitted: int


class EnrollmentDetail(AdminEnrollment):
    milestones: list[EnrollmentMilestone]
    progress: Progress


class EnrollmentOut(Ok):
    enrollment: AdminEnrollment


class EnrollmentDetailOut(Ok):
    enrollment: EnrollmentDetail


class RepairOut(Ok):
    created: int
    existing: int
    total: int
    milestones: list[EnrollmentMilestone]


class SubmissionsQuery(ListQuery):
    status: str = Field("", description="submitted|approved|rejected")
    search: str = Field("", max_length=200)


class Submission(Out):
    """A final-project submission (one per enrollment: ``id`` and ``enrollmentId`` are the enrollment's)."""
    id: str
    enrollmentId: str
    user_id: Optional[str] = None
    student_name: Optional[str] = None
    student_email: Optional[str] = None
    domain_name: Optional[str] = None
    submission_email: Optional[str] = None
    submitted_at: Optional[str] = None
    project_status: str
    remarks: Optional[str] = None
    enrollment_status: Optional[str] = None


class MilestoneSubmissionsQuery(ListQuery):
    status: str = Field("", description="submitted|reviewed|rejected|pending; empty: submitted, reviewed and "
                                        "rejected together, newest first")
    enrollment_id: str = ""


class Milestone(EnrollmentMilestone):
    """A milestone in the review queue: with its student and domain."""
    student_name: Optional[str] = None
    student_email: Optional[str] = None
    domain_name: Optional[str] = None


class SubmissionCounts(Out):
    submitted: int
    reviewed: int
    rejected: int


class MilestonePage(Page):
    milestones: list[Milestone]
    pendingCount: int = Field(description="submitted milestones awaiting review (the badge)")
    counts: SubmissionCounts


class DecisionOut(Ok):
    enrollmentId: str
    project_status: str
    remarks: Optional[str] = None
    completed: bool


class ResourcesQuery(ListQuery):
    domain_id: str = ""
    week: int = Field(0, ge=0, le=MAX_WEEK, description="0 = every week")
    resource_type: str = ""


class Resource(Out):
    id: str
    domain_id: str
    week: int
    position: Optional[int] = None
    title: str
    description: Optional[str] = None
    resource_type: str
    url: Optional[str] = None
    file_key: Optional[str] = None
    is_active: Optional[bool] = None
    created_at: Optional[str] = None
    created_by: Optional[str] = None
    updated_at: Optional[str] = None
    updated_by: Optional[str] = None


class ResourceDetail(Resource):
    download_url: Optional[str] = Field(None, description="short-lived link to the stored file (file_key)")


class ResourceOut(Ok):
    resource: ResourceDetail


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


class CertTemplate(Out):
    id: str
    name: str
    description: Optional[str] = None
    layout: CertificateLayout
    is_active: bool
    created_at: Optional[str] = None
    created_by: Optional[str] = None
    updated_at: Optional[str] = None
    updated_by: Optional[str] = None


class TemplatePage(Page):
    templates: list[CertTemplate]
    activeTemplateId: Optional[str] = Field(None, description="the template driving the certificate PDF")


class TemplateOut(Ok):
    template: CertTemplate


class CertificatesQuery(ListQuery):
    search: str = Field("", max_length=200)
    revoked: Literal["", "true", "false"] = ""
    domain_id: str = ""


class Certificate(Out):
    certificate_id: str
    enrollment_id: str
    user_id: str
    student_name: Optional[str] = None
    student_email: Optional[str] = None
    domain_id: Optional[str] = None
    domain_name: Optional[str] = None
    duration: Optional[int] = None
    issue_date: Optional[str] = None
    issued_at: Optional[str] = None
    expiry_at: Optional[str] = None
    pdf_key: Optional[str] = None
    status_index: Optional[int] = Field(None, description="the certificate's entry in the credential status list")
    revoked: bool
    revoked_at: Optional[str] = None
    revoked_by: Optional[str] = None
    revoked_reason: Optional[str] = None
    unrevoked_at: Optional[str] = None
    unrevoked_by: Optional[str] = None


class CertificateOut(Ok):
    certificate: Certificate


class InvoicesQuery(ListQuery, DateRange):
    search: str = Field("", max_length=200)
    user_id: str = ""


class Invoice(Out):
    id: str
    number: str
    financial_year: Optional[str] = None
    sequence: Optional[int] = None
    enrollment_id: str
    user_id: str
    student_name: Optional[str] = None
    student_email: Optional[str] = None
    student_state: Optional[str] = None
    student_phone: Optional[str] = None
    domain_id: Optional[str] = None
    domain_name: Optional[str] = None
    duration: Optional[int] = None
    price: Optional[float] = None
    discount: Optional[float] = None
    amount: Optional[float] = None
    coupon_code: Optional[str] = None
    payment_id: Optional[str] = None
    order_id: Optional[str] = None
    tax_mode: Optional[str] = None
    taxable_value: Optional[float] = None
    cgst: Optional[float] = None
    sgst: Optional[float] = None
    igst: Optional[float] = None
    gst_rate: Optional[float] = None
    total_tax: Optional[float] = None
    issued_at: Optional[str] = None
    invoice_date: Optional[str] = None
    pdf_key: Optional[str] = None
    last_sent_at: Optional[str] = None
    last_email_id: Optional[str] = None
    send_count: Optional[int] = None


class InvoiceSendOut(Ok):
    emailId: str
    to: str
    invoiceId: str


Deleted = Message  # {success, message}
