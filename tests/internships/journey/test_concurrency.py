"""Exactly-once under concurrency: coupon redemption and payment activation."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from .helpers import make_coupon, make_domain, sign


def _principal(user):
    from internships.auth import Principal

    return Principal(user.id, user.role, user.email, user.name, frozenset())


def test_fifty_parallel_redemptions_of_a_ten_use_coupon(internships_app, intern_users, intern_seed, atomic_moto):
    """The domain code runs in 50 threads at once (the Powertools resolver object is per-Lambda, one
    request at a time, so concurrency is exercised below the HTTP adapter)."""
    from internships.enrollments import service
    from internships.enrollments.models import CreateEnrollment
    from lambdakit.errors import ApiError

    c = internships_app.internships
    admin = intern_users.staff("admin")
    domain = make_domain(c, admin)
    coupon = make_coupon(c, admin, code="TEN4ALL", max_uses=10)
    students = [intern_users.student() for _ in range(50)]
    data = CreateEnrollment(domainId=domain["id"], duration=1, couponCode="TEN4ALL")

    def enroll(i_s):
        i, s = i_s
        try:
            return service.create(_principal(s), data, ip=f"10.60.0.{i}")["status"]
        except ApiError as exc:
            # a loser that read the coupon used up and one that lost the transaction: the same answer
            assert exc.message == "This coupon code is not valid", exc.message
            return exc.status

    with ThreadPoolExecutor(max_workers=25) as pool:
        results = list(pool.map(enroll, enumerate(students)))
    assert results.count("pending") == 10, results
    assert set(results) == {"pending", 400}
    got = c.get(f"/api/admin/coupons/{coupon['id']}", headers=admin.headers).json()["coupon"]
    assert got["used_count"] == 10
    mine = [c.get("/api/enrollments/my-enrollments", headers=s.headers).json()["enrollments"] for s in students[:5]]
    assert all(len(m) <= 1 for m in mine)


def test_browser_and_webhook_racing_activate_once(internships_app, intern_users, intern_seed, atomic_moto):
    import hashlib
    import hmac
    import json

    c = internships_app.internships
    admin = intern_users.staff("admin")
    domain = make_domain(c, admin)
    s = intern_users.student()
    e = c.post("/api/enrollments/create", headers=s.headers, json={"domainId": domain["id"], "duration": 3}
               ).json()["enrollment"]
    order, pay = e["order"]["orderId"], "pay_RACE000000001"
    verify = {"enrollmentId": e["id"], "orderId": order, "paymentId": pay,
              "signature": sign(intern_seed["payments"]["key_secret"], order, pay)}
    body = json.dumps({"event": "payment.captured", "payload": {"payment": {"entity": {
        "id": pay, "order_id": order, "amount": e["order"]["amount"], "status": "captured"}}}})
    sig = hmac.new(intern_seed["payments"]["webhook_secret"].encode(), body.encode(), hashlib.sha256).hexdigest()

    from internships.enrollments import service
    from internships.enrollments.models import VerifyPayment

    def call(i):
        if i % 2:
            return service.verify_payment(_principal(s), VerifyPayment(**verify))["enrollment"]["status"]
        return service.handle_webhook(body.encode(), sig, f"evt_{i}")["result"]

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(call, range(8)))
    assert set(results) == {"active", "activated"}, results
    ms = c.get("/api/milestones", headers=s.headers, query={"enrollmentId": e["id"]}).json()["milestones"]
    assert len(ms) == 3
    inv = c.get("/api/invoices/my-invoices", headers=s.headers).json()
    assert inv["total"] == 1 and len(inv["invoices"]) == 1
