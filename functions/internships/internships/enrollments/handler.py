"""Student enrollments and payments: create, my-enrollments, verify-payment, submit, cancel, and the
gateway webhook (POST /api/payments/webhook, added by the issue). The rules (``service``: gateway,
coupons, invoices, outbox) are imported by the routes that change something; the list needs only
``views`` (issue #21, cold first request)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import client_ip, header, json_object, parse_model, raw_body
from lambdakit.openapi import doc

from ..auth import principal, require_user
from ..http import build_app, lambda_entry, ok
from . import views

router = APIGatewayHttpRouter()


@router.post("/api/enrollments/create", summary="Enroll in a domain (creates the payment order)",
             middlewares=[require_user],
             description="Students only. 400 bad duration, 404 unknown domain, 409 when an active or pending "
                         "enrollment in the domain exists or maxEnrollmentsPerStudent is reached. A couponCode the "
                         "student cannot use (unknown, inactive, expired, used up, for another domain, or its last "
                         "use taken by a concurrent enrollment) is 400 with the one message \"This coupon code is "
                         "not valid\". Each couponCode tried counts against the coupon budgets of POST "
                         "/api/coupons/validate (per user 10/min, per IP 30/min, one budget for both routes): "
                         "429 with Retry-After.",
             openapi_extensions=doc(body="internships.enrollments.models:CreateEnrollment", response="internships.enrollments.models:EnrollmentCreated", errors=(409, 429, 503)))
def create():
    from . import service
    from .models import CreateEnrollment

    data = parse_model(CreateEnrollment, json_object(router))
    return ok({"success": True, "enrollment": service.create(principal(router), data, ip=client_ip(router))})


@router.get("/api/enrollments/my-enrollments", summary="The caller's enrollments, newest first",
            middlewares=[require_user],
             openapi_extensions=doc(response="internships.enrollments.models:EnrollmentList"))
def my_enrollments():
    return ok({"success": True, "enrollments": views.my_enrollments(principal(router))})


@router.post("/api/enrollments/verify-payment", summary="Verify the checkout signature and activate",
             middlewares=[require_user],
             description="HMAC-SHA256(key_secret, order_id|paymentId), constant-time. Idempotent; a wrong "
                         "signature is 400 and changes nothing.",
             openapi_extensions=doc(body="internships.enrollments.models:VerifyPayment", response="internships.enrollments.models:EnrollmentResult", errors=(409, 503)))
def verify_payment():
    from . import service
    from .models import VerifyPayment

    data = parse_model(VerifyPayment, json_object(router))
    return ok(service.verify_payment(principal(router), data))


@router.post("/api/enrollments/<id>/submit", summary="Submit the final project", middlewares=[require_user],
             openapi_extensions=doc(body="internships.enrollments.models:SubmitProject", response="internships.enrollments.models:EnrollmentResult", errors=(409,)))
def submit(id: str):  # noqa: A002
    from . import service
    from .models import SubmitProject

    data = parse_model(SubmitProject, json_object(router))
    return ok({"success": True, "message": "Final project submitted",
               "enrollment": service.submit_project(principal(router), id, data)})


@router.post("/api/enrollments/<id>/cancel", summary="Cancel a pending or active enrollment",
             middlewares=[require_user],
             openapi_extensions=doc(response="internships.enrollments.models:EnrollmentResult", errors=(409,)))
def cancel(id: str):  # noqa: A002
    from . import service

    return ok({"success": True, "message": "Enrollment cancelled", "enrollment": service.cancel(principal(router), id)})


@router.post("/api/payments/webhook", summary="Payment gateway webhook (Razorpay format)",
             description="X-Razorpay-Signature = HMAC-SHA256(webhook_secret, raw body); de-duplicated by "
                         "x-razorpay-event-id; payment.captured activates the enrollment.",
             openapi_extensions=doc(response="internships.enrollments.models:WebhookResult", errors=(400, 503), public=True))
def webhook():
    from . import service

    return ok(service.handle_webhook(raw_body(router), header(router, "x-razorpay-signature"),
                                     header(router, "x-razorpay-event-id")))


app = build_app(router)
lambda_handler = lambda_entry(app)
