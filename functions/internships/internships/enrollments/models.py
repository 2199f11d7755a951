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
class _Out(Model):
    model_config = ConfigDict(extra="allow", defer_build=True)


class Order(_Out):
    orderId: str
    amount: int
    currency: str
    keyId: str | None = None


class Enrollment(_Out):
    id: str
    domainId: str
    domainName: str | None = None
    duration: int
    amount: float
    discount: float
    status: str
    paymentStatus: str
    createdAt: str | None = None
    order: Order | None = None


class EnrollmentCreated(_Out):
    success: bool
    enrollment: Enrollment


class EnrollmentList(_Out):
    success: bool
    enrollments: list[Enrollment]


class EnrollmentResult(_Out):
    success: bool
    message: str
    enrollment: Enrollment


class WebhookResult(_Out):
    success: bool
    duplicate: bool | None = None
    result: str | None = None
