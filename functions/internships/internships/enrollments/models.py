"""Student enrollment bodies (camelCase, as the spec lists them)."""
from __future__ import annotations

from pydantic import ConfigDict, Field

from lambdakit.model import Model


class CreateEnrollment(Model):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    domainId: str = Field(min_length=1, max_length=64)
    duration: object = None
    couponCode: str | None = Field(default=None, max_length=40)


class VerifyPayment(Model):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    enrollmentId: str = Field(min_length=1, max_length=64)
    paymentId: str = Field(min_length=1, max_length=64)
    orderId: str = Field(min_length=1, max_length=64)
    signature: str = Field(min_length=1, max_length=256)


class SubmitProject(Model):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    submissionEmail: str = Field(min_length=3, max_length=254)


# ---------------------------------------------------------------- response bodies (OpenAPI)
# Every answer is dumped through these models (issue 35). The student's view is built from the stored
# enrollment by the model itself: a field's ``validation_alias`` names the storage attribute it shows (its
# own name, the API's, is accepted too: ``populate_by_name``, so an answer validates again at the route's
# boundary), so a field added here with its attribute reaches the client, and nothing else does.
class Order(Model):
    """The checkout order (``create`` only, ``null`` for a free enrollment): amounts in paise."""

    orderId: str
    amount: int
    currency: str
    keyId: str | None = None


class EnrollmentView(Model):
    """The student's view of an enrollment (``views.view``: ``lambdakit.model.dump(EnrollmentView, item)``
    of the stored item); every field present, ``null`` until a state sets it."""

    model_config = ConfigDict(populate_by_name=True)

    id: str
    domainId: str = Field(validation_alias="domain_id")
    domainName: str | None = Field(None, validation_alias="domain_name")
    domainSlug: str | None = Field(None, validation_alias="domain_slug")
    duration: int
    price: float | None = None
    amount: float
    discount: float
    couponCode: str | None = Field(None, validation_alias="coupon_code")
    status: str
    paymentStatus: str = Field(validation_alias="payment_status")
    orderId: str | None = Field(None, validation_alias="order_id")
    paymentId: str | None = Field(None, validation_alias="payment_id")
    invoiceId: str | None = Field(None, validation_alias="invoice_id")
    invoiceNumber: str | None = Field(None, validation_alias="invoice_number")
    certificateId: str | None = Field(None, validation_alias="certificate_id")
    milestoneCount: int = Field(0, validation_alias="milestone_count")
    submissionEmail: str | None = Field(None, validation_alias="submission_email")
    submittedAt: str | None = Field(None, validation_alias="submitted_at")
    createdAt: str | None = Field(None, validation_alias="created_at")
    activatedAt: str | None = Field(None, validation_alias="activated_at")
    paidAt: str | None = Field(None, validation_alias="paid_at")
    completedAt: str | None = Field(None, validation_alias="completed_at")
    cancelledAt: str | None = Field(None, validation_alias="cancelled_at")
    endDate: str | None = Field(None, validation_alias="end_date")


class Enrollment(EnrollmentView):
    """The student's view of an enrollment; ``order`` only in the answer of ``POST /api/enrollments/create``."""

    order: Order | None = None


class EnrollmentCreated(Model):
    success: bool
    enrollment: Enrollment


class EnrollmentList(Model):
    success: bool
    enrollments: list[Enrollment]


class EnrollmentResult(Model):
    success: bool
    message: str
    enrollment: Enrollment


class WebhookResult(Model):
    success: bool
    duplicate: bool | None = None
    #: activated | refund_required | amount_mismatch | unknown_order | failed_recorded | ignored
    result: str | None = None
