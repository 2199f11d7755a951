"""The student's view of an enrollment and the my-enrollments list: apart from ``service`` so that the
list route imports neither the payment gateway nor the coupons, invoices and outbox its rules need
(a cold first request of the read route, issue #21)."""
from __future__ import annotations

from . import repository as repo


def view(e: dict) -> dict:
    return {
        "id": e["id"], "domainId": e["domain_id"], "domainName": e.get("domain_name"),
        "domainSlug": e.get("domain_slug"), "duration": e["duration"], "price": e.get("price"),
        "amount": e["amount"], "discount": e["discount"], "couponCode": e.get("coupon_code"),
        "status": e["status"], "paymentStatus": e["payment_status"], "orderId": e.get("order_id"),
        "paymentId": e.get("payment_id"), "invoiceId": e.get("invoice_id"), "invoiceNumber": e.get("invoice_number"),
        "certificateId": e.get("certificate_id"), "milestoneCount": e.get("milestone_count", 0),
        "submissionEmail": e.get("submission_email"), "submittedAt": e.get("submitted_at"),
        "createdAt": e["created_at"], "activatedAt": e.get("activated_at"), "paidAt": e.get("paid_at"),
        "completedAt": e.get("completed_at"), "cancelledAt": e.get("cancelled_at"),
        "endDate": e.get("end_date"),
    }


def my_enrollments(p) -> list[dict]:
    return [view(e) for e in repo.list_for_user(p.user_id)]
