"""Helpers for the journey tests: catalogue set-up through the admin routes, and payment signatures."""
from __future__ import annotations

import hashlib
import hmac
import itertools

_n = itertools.count(1)

PLAN = [{"title": "Setup", "description": "Tooling"}, {"title": "Build", "description": "Core"},
        {"title": "Ship", "description": "Deploy"}]


def make_domain(c, admin, **over) -> dict:
    i = next(_n)
    body = {"name": f"Web Development {i}", "slug": f"web-dev-{i}", "description": "Full stack",
            "prices": {"1": 1000, "2": 1800, "3": 2500}, "milestones": PLAN, "is_active": True, **over}
    r = c.post("/api/admin/domains", json=body, headers=admin.headers)
    assert r.status == 201, r.text
    return r.json()["domain"]


def make_coupon(c, admin, **over) -> dict:
    i = next(_n)
    body = {"code": f"SAVE{i}", "discount_type": "percent", "discount_value": 10, "max_uses": 100,
            "expires_at": None, "domain_ids": [], "is_active": True, **over}
    r = c.post("/api/admin/coupons", json=body, headers=admin.headers)
    assert r.status == 201, r.text
    return r.json()["coupon"]


def sign(key_secret: str, order_id: str, payment_id: str) -> str:
    return hmac.new(key_secret.encode(), f"{order_id}|{payment_id}".encode(), hashlib.sha256).hexdigest()


def enroll_and_pay(c, student, domain, seed, duration=1, coupon=None) -> dict:
    body = {"domainId": domain["id"], "duration": duration}
    if coupon:
        body["couponCode"] = coupon
    r = c.post("/api/enrollments/create", json=body, headers=student.headers)
    assert r.status == 200, r.text
    e = r.json()["enrollment"]
    pay_id = f"pay_{next(_n):014d}"
    r = c.post("/api/enrollments/verify-payment", headers=student.headers, json={
        "enrollmentId": e["id"], "orderId": e["order"]["orderId"], "paymentId": pay_id,
        "signature": sign(seed["payments"]["key_secret"], e["order"]["orderId"], pay_id)})
    assert r.status == 200, r.text
    return r.json()["enrollment"]
