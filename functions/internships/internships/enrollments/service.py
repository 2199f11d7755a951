"""Enrollment rules: create (price − coupon, one open enrollment per domain, site-wide cap),
payment verification and webhook activation (exactly once), project submission, cancellation.

States: ``pending`` (order created) → ``active`` (paid: milestones + invoice + email) →
``completed`` (admin approve: certificate) ; ``pending|active`` → ``cancelled`` by the student.
``paymentStatus``: ``created`` → ``paid`` (or ``failed`` from the webhook; ``free`` when a coupon
covers the whole price, which activates at once).
"""
from __future__ import annotations

import datetime as _dt
import logging

from lambdakit import clock, ids
from lambdakit.errors import BadRequest, ConditionFailed, Conflict, Contention, Forbidden, NotFound, ValidationFailed
from lambdakit.http import safe_json_loads
from lambdakit.observability import count

from ..accounts import repository as users
from ..catalog import repository as domains
from ..coupons import repository as coupon_repo
from ..coupons import service as coupons
from ..learning import plan as milestone_plan
from ..mail import outbox
from ..settings import settings
from . import gateway, invoices
from . import repository as repo
from .views import created, view

logger = logging.getLogger("internships.enrollments")
DURATIONS = (1, 2, 3)
#: attempts at a project submission whose condition failed while the enrollment read back is still active
SUBMIT_ATTEMPTS = 3


def _duration(raw) -> int:
    if isinstance(raw, bool):
        raise BadRequest("Invalid duration: must be 1, 2 or 3")
    if isinstance(raw, str) and raw.strip().isdigit():
        raw = int(raw.strip())
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    if not isinstance(raw, int) or raw not in DURATIONS:
        raise BadRequest("Invalid duration: must be 1, 2 or 3")
    return raw


def _owned(eid: str, user_id: str, *, consistent: bool = True) -> dict:
    e = repo.get(eid, consistent=consistent)
    if not e or e["user_id"] != user_id:
        raise NotFound("Enrollment not found")
    return e


def _max_open() -> int | None:
    raw = domains.site_settings().get("maxEnrollmentsPerStudent")
    if raw is None:
        return None
    try:
        n = int(raw)
    except (TypeError, ValueError):
        return None
    return n if n > 0 else None


# ---------------------------------------------------------------- create
def create(p, data, *, ip: str) -> dict:
    """``ip``: the caller's address; a ``couponCode`` is a coupon try on the caller's and the address's
    coupon budgets (``coupons.check_rate``, shared with ``POST /api/coupons/validate``)."""
    if p.role != "student":
        raise Forbidden("Only students can enroll")
    duration = _duration(data.duration)
    domain = domains.get(data.domainId)
    if not domain or not domain.get("is_active"):
        raise NotFound("Domain not found")
    price = (domain.get("prices") or {}).get(str(duration))
    if price is None:
        raise BadRequest("This duration is not offered for the domain")
    price = round(float(price), 2)
    coupon = None
    discount = 0.0
    if data.couponCode:
        coupons.check_rate(p.user_id, ip)
        coupon = coupons.usable(data.couponCode, domain["id"])
        discount = coupons.discount_for(coupon, price)
    amount = round(max(0.0, price - discount), 2)
    user = users.get_user(p.user_id, consistent=True)
    if not user:
        raise NotFound("User not found")
    now = clock.now_iso()
    eid = ids.sortable_id()
    amount_paise = int(round(amount * 100))
    e = {
        "id": eid, "user_id": p.user_id, "student_name": user.get("name", ""), "student_email": user["email"],
        "domain_id": domain["id"], "domain_name": domain["name"], "domain_slug": domain["slug"],
        "plan": domain.get("milestones", []), "duration": duration, "price": price, "discount": discount,
        "amount": amount, "amount_paise": amount_paise, "status": "pending", "payment_status": "created",
        "created_at": now, "updated_at": now,
    }
    if coupon:
        e.update(coupon_code=coupon["code"], coupon_id=coupon["id"])
    order = None
    if amount_paise > 0:
        gw = gateway.gateway()
        order = gw.create_order(amount_paise, eid, {"enrollment_id": eid, "domain": domain["slug"]})
        e.update(order_id=order["id"], gateway=gw.name)
    try:
        repo.create(e, coupon_op=coupon_repo.redeem_op(coupon, now) if coupon else None, max_open=_max_open())
    except repo.CreateRefused as r:
        raise {
            "open": Conflict("You already have an active or pending enrollment in this domain"),
            "limit": Conflict("Maximum number of enrollments per student reached"),
            "domain": NotFound("Domain not found"),
            # lost the race for the last use (or it expired meanwhile): the one answer of coupons.NOT_VALID
            "coupon": BadRequest(coupons.NOT_VALID),
        }.get(r.what, Conflict("Could not create the enrollment, please retry")) from None
    count("EnrollmentsCreated")
    if amount_paise == 0:
        e = activate(e, payment_id=None, source="free")
    return created(e, None if order is None else {
        "orderId": order["id"], "amount": amount_paise, "currency": "INR", "keyId": gateway.credentials().key_id})


# ---------------------------------------------------------------- activation (exactly once)
def activate(e: dict, *, payment_id: str | None, source: str) -> dict:
    """Move a pending enrollment to active with its milestones, invoice and confirmation email.
    Idempotent: an already active/completed paid enrollment is returned as it is.

    Metrics: EnrollmentsActivated (and PaymentsVerified for a paid one) once, after the activating write;
    a payment that arrives for an enrollment already activated counts as PaymentsDuplicated."""
    if e["status"] in ("active", "completed") and e["payment_status"] in ("paid", "free"):
        if source != "free":
            count("PaymentsDuplicated")
        return e
    if e["status"] != "pending":
        raise Conflict(f"Enrollment is {e['status']}")
    s = settings()
    now = clock.now_iso()
    domain = domains.get(e["domain_id"])
    plan = (domain or {}).get("milestones") or e.get("plan") or []
    milestones = milestone_plan.build(e, plan, now)
    user = users.get_user(e["user_id"], consistent=True) or {"name": e.get("student_name"),
                                                             "email": e.get("student_email")}
    end = clock.parse_iso(now)
    fields = {"status": "active", "payment_status": "free" if source == "free" else "paid", "activated_at": now,
              "paid_at": now, "updated_at": now, "milestone_count": len(milestones), "payment_source": source,
              "end_date": (end + _dt.timedelta(days=30 * int(e["duration"]))).date().isoformat()}
    if payment_id:
        fields["payment_id"] = payment_id
    for attempt in range(8):
        invoice = None
        if e["amount"] > 0:
            fy = invoices.financial_year(clock.now())
            n = repo.invoice_sequence(fy) + 1
            inv_id = ids.sortable_id()
            invoice = invoices.build(inv_id, invoices.invoice_number(fy, n), fy, n, {**e, **fields}, user,
                                     seller_state=s.seller_state, rate_percent=s.gst_rate_percent, issued_at=now)
            fields.update(invoice_id=inv_id, invoice_number=invoice["number"])
        # the confirmation email is written with the activation (transactional outbox; issue 23
        # rule 4): it exists exactly when the enrollment is active, and its dedupe key is the
        # activation's, so it is queued once
        email_id, mail_ops = _confirmation(e, user)
        try:
            repo.activate(e, fields, milestones, invoice, mail_ops)
            break
        except ConditionFailed as exc:
            if exc.reasons and exc.reasons[0] == "ConditionalCheckFailed":
                cur = repo.get(e["id"], consistent=True)
                if cur and cur["status"] in ("active", "completed") and cur["payment_status"] in ("paid", "free"):
                    if source != "free":
                        count("PaymentsDuplicated")
                    return cur  # someone else (browser or webhook) activated it first
                if cur and cur["status"] == "pending":
                    continue  # the condition failed but it is still pending: unconfirmed, retried (issue 23 rule 2)
                raise Conflict(f"Enrollment is {cur['status'] if cur else 'gone'}") from None
            if attempt == 7:
                raise
    else:  # pragma: no cover
        raise Contention("Could not activate the enrollment, please retry")
    count("EnrollmentsActivated")
    if source != "free":
        count("PaymentsVerified")
    outbox.announce(email_id)
    return {**e, **fields}


def _confirmation(e: dict, user: dict) -> tuple[str | None, list[dict]]:
    """The enrollment confirmation email as writes of the activation transaction (none without an
    address, or with one the outbox refuses: that never blocks a paid activation)."""
    return outbox.pending_if_addressed("enrollment", e.get("student_email") or user.get("email"), {
        "name": user.get("name", ""), "domainName": e["domain_name"], "duration": e["duration"],
        "amount": f"{e['amount']:.2f}", "dashboardUrl": _dashboard_url(),
    }, dedupe_key=f"enrollment-active-{e['id']}", user_id=e["user_id"])


def _dashboard_url() -> str:
    s = settings()
    return (s.frontend_url or s.public_base_url).rstrip("/") + "/dashboard"


def verify_payment(p, data) -> dict:
    e = _owned(data.enrollmentId, p.user_id)
    if not e.get("order_id") or data.orderId != e["order_id"]:
        count("PaymentsRefused")
        raise BadRequest("Order does not match this enrollment")
    if not gateway.verify_checkout(e["order_id"], data.paymentId, data.signature):
        count("PaymentsRefused")
        raise BadRequest("Invalid payment signature")
    if e["status"] == "cancelled":
        repo.set_fields(e["id"], {"payment_status": "paid", "payment_id": data.paymentId, "refund_required": True,
                                  "updated_at": clock.now_iso()}, condition="#st = :c", names={"#st": "status"},
                        values={":c": "cancelled"})
        count("PaymentsVerified")  # a real payment, to be refunded
        raise Conflict("Enrollment was cancelled; the payment will be refunded")
    e = activate(e, payment_id=data.paymentId, source="checkout")
    return {"success": True, "message": "Payment verified", "enrollment": view(e)}


def handle_webhook(raw: bytes, signature: str | None, event_id: str | None) -> dict:
    if not gateway.verify_webhook(raw, signature):
        count("PaymentsRefused")
        raise BadRequest("Invalid webhook signature")
    if not event_id or len(event_id) > 128:
        raise BadRequest("Missing x-razorpay-event-id")
    if repo.webhook_seen(event_id):
        count("PaymentsDuplicated")
        return {"success": True, "duplicate": True}
    try:
        body = safe_json_loads(raw)  # the shared request-body parser (issue 17)
        event = body["event"]
        entity = body["payload"]["payment"]["entity"]
        order_id, payment_id = str(entity["order_id"]), str(entity["id"])
    except (ValidationFailed, KeyError, TypeError):
        raise BadRequest("Unsupported webhook payload") from None
    result = "ignored"
    e = repo.enrollment_for_order(order_id)
    if e is None:
        result = "unknown_order"
    elif event in ("payment.captured", "order.paid"):
        if int(entity.get("amount", -1)) != int(e.get("amount_paise", -2)):
            logger.warning("webhook amount mismatch", extra={"enrollment_id": e["id"]})
            count("PaymentsRefused")
            result = "amount_mismatch"
        elif e["status"] == "cancelled":
            repo.set_fields(e["id"], {"payment_status": "paid", "payment_id": payment_id, "refund_required": True,
                                      "updated_at": clock.now_iso()}, condition="#st = :c",
                            names={"#st": "status"}, values={":c": "cancelled"})
            count("PaymentsVerified")  # a real payment, to be refunded
            result = "refund_required"
        else:
            activate(e, payment_id=payment_id, source="webhook")
            result = "activated"
    elif event == "payment.failed" and e["status"] == "pending":
        try:
            repo.set_fields(e["id"], {"payment_status": "failed", "updated_at": clock.now_iso()},
                            condition="#st = :p AND payment_status <> :paid", names={"#st": "status"},
                            values={":p": "pending", ":paid": "paid"})
        except ConditionFailed:
            pass
        result = "failed_recorded"
    repo.mark_webhook(event_id, clock.now_iso(), int(clock.now_ts()) + 30 * 86400)
    return {"success": True, "result": result}


# ---------------------------------------------------------------- student actions
def submit_project(p, eid: str, data) -> dict:
    """Record the final project on an active enrollment, with the student's email in the same
    transaction (the transactional outbox, issue 23 rule 4). A failed condition is read back
    before it is believed (rule 2): still active and the student's, it is retried."""
    from ..accounts.service import normalize_email

    email = normalize_email(data.submissionEmail)
    e = _owned(eid, p.user_id)
    for _ in range(SUBMIT_ATTEMPTS):
        if e["status"] != "active":
            raise Conflict("Only an active enrollment accepts a project submission")
        now = clock.now_iso()
        fields = {"submission_email": email, "submitted_at": now, "updated_at": now, "project_status": "submitted"}
        email_id, mail_ops = outbox.pending_if_addressed(
            "submission", e.get("student_email"), {"name": e.get("student_name", ""), "domainName": e["domain_name"]},
            user_id=p.user_id)
        try:
            repo.submit_project(eid, p.user_id, fields, mail_ops, fresh=outbox.fresh_puts(mail_ops))
        except ConditionFailed:
            e = _owned(eid, p.user_id)  # unconfirmed while still active: retried
            continue
        outbox.announce(email_id)
        return view({**e, **fields})
    raise Contention("Could not record the submission, please retry")


def cancel(p, eid: str) -> dict:
    e = _owned(eid, p.user_id)
    if e["status"] not in ("pending", "active"):
        raise Conflict(f"A {e['status']} enrollment cannot be cancelled")
    now = clock.now_iso()
    try:
        repo.cancel(e, release_coupon=e["status"] == "pending" and e.get("payment_status") != "paid", now=now)
    except ConditionFailed:
        raise Conflict("The enrollment changed meanwhile; reload and retry") from None
    return view({**e, "status": "cancelled", "cancelled_at": now})

