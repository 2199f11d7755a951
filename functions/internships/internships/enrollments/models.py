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
# Every answer is dumped through these models (issue 35): ``views.view`` names the student's fields,
# a key it adds must be declared here to reach the client.
class Order(Model):
    """The checkout order (``create`` only, ``null`` for a free enrollment): amounts in paise."""

    orderId: str
    amount: int
    currency: str
    keyId: str | None = None


class Enrollment(Model):
    """The student's view of an enrollment (``enrollments.views.view``); ``null`` until a state sets it."""

    id: str
    domainId: str
    domainName: str | None = None
    domainSlug: str | None = None
    duration: int
    price: float | None = None
    amount: float
    discount: float
    couponCode: str | None = None
    status: str
    paymentStatus: str
    orderId: str | None = None
    paymentId: str | None = None
    invoiceId: str | None = None
    invoiceNumber: str | None = None
    certificateId: str | None = None
    milestoneCount: int = 0
    submissionEmail: str | None = None
    submittedAt: str | None = None
    createdAt: str | None = None
    activatedAt: str | None = None
    paidAt: str | None = None
    completedAt: str | None = None
    cancelledAt: str | None = None
    endDate: str | None = None
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
