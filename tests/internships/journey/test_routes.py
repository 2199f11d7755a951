"""Route behaviour beyond the happy path: access control, admin CRUD, cancel, webhook, profile, verify."""
from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from .helpers import enroll_and_pay, make_coupon, make_domain

ADMIN_ROUTES = [("GET", "/api/admin/domains"), ("POST", "/api/admin/domains"), ("GET", "/api/admin/coupons"),
                ("POST", "/api/admin/coupons"), ("POST", "/api/admin/milestones/x-01/review"),
                ("POST", "/api/admin/milestones/x-01/force-status"), ("POST", "/api/admin/enrollments/x/approve")]


@pytest.mark.parametrize("method,path", ADMIN_ROUTES)
def test_admin_routes_refuse_anonymous_and_students(internships_app, intern_users, method, path):
    c = internships_app.internships
    assert c.request(method, path, json={}).status == 401
    s = intern_users.student()
    r = c.request(method, path, json={}, headers=s.headers)
    assert r.status == 403 and r.json()["error"]


def test_declared_requirements_of_my_admin_routers():
    from internships.admin_catalog.handler import router as cat
    from internships.admin_review.handler import router as rev

    declared = {}
    for r in (cat, rev):
        for key, mws in r._routes_with_middleware.items():
            path, methods = key[0], key[1]
            for m in methods:
                req = [getattr(x, "permission", None) or tuple(sorted(getattr(x, "roles", ()))) for x in mws]
                declared[(m, path)] = req
    assert declared[("GET", "/api/admin/domains")] == [("admin", "super_admin")]
    assert declared[("POST", "/api/admin/coupons")] == ["manage_coupons"]
    assert declared[("POST", "/api/admin/milestones/<id>/review")] == ["review_milestones"]
    assert declared[("POST", "/api/admin/milestones/<id>/force-status")] == [("admin", "super_admin")]
    assert declared[("POST", "/api/admin/enrollments/<id>/approve")] == ["manage_enrollments"]
    assert len(declared) == 13


def test_domain_and_coupon_admin_crud(internships_app, intern_users):
    c = internships_app.internships
    admin = intern_users.staff("admin")
    pa = intern_users.staff("project_admin")
    assert c.get("/api/admin/domains", headers=pa.headers).status == 403  # domains: admin, super_admin only
    d = make_domain(c, admin, slug="data-science", is_active=False)
    assert c.get("/api/domains/data-science").status == 404  # inactive is not public
    assert c.post("/api/admin/domains", headers=admin.headers, json={
        "name": "Dup", "slug": "data-science", "prices": {"1": 10}}).status == 409
    bad = c.post("/api/admin/domains", headers=admin.headers, json={"name": "X", "prices": {"4": 10}})
    assert bad.status == 400
    r = c.put(f"/api/admin/domains/{d['id']}", headers=admin.headers, json={"is_active": True, "slug": "ds"})
    assert r.status == 200 and r.json()["domain"]["slug"] == "ds"
    assert c.get("/api/domains/ds").status == 200 and c.get("/api/domains/data-science").status == 404
    cp = make_coupon(c, admin, code="flat100", discount_type="flat", discount_value=100)
    assert cp["code"] == "FLAT100"
    assert c.post("/api/admin/coupons", headers=admin.headers, json={
        "code": "FLAT100", "discount_type": "flat", "discount_value": 1}).status == 409
    assert c.post("/api/admin/coupons", headers=admin.headers, json={
        "code": "P", "discount_type": "percent", "discount_value": 150}).status == 400
    lst = c.get("/api/admin/coupons", headers=admin.headers, query={"page": 1, "limit": 10}).json()
    assert lst["total"] == 1 and lst["pages"] == 1 and lst["coupons"][0]["code"] == "FLAT100"
    assert c.delete(f"/api/admin/coupons/{cp['id']}", headers=admin.headers).status == 200
    assert c.get(f"/api/admin/coupons/{cp['id']}", headers=admin.headers).status == 404
    assert c.delete(f"/api/admin/domains/{d['id']}", headers=admin.headers).status == 200


def test_enrollment_errors_cancel_and_coupon_release(internships_app, intern_users, intern_seed):
    c = internships_app.internships
    admin = intern_users.staff("admin")
    d = make_domain(c, admin)
    make_coupon(c, admin, code="ONCE", max_uses=1)
    s = intern_users.student()
    assert c.post("/api/enrollments/create", headers=s.headers, json={"domainId": d["id"], "duration": 4}
                  ).status == 400
    assert c.post("/api/enrollments/create", headers=s.headers, json={"domainId": "nope", "duration": 1}
                  ).status == 404
    assert c.post("/api/enrollments/create", headers=admin.headers, json={"domainId": d["id"], "duration": 1}
                  ).status == 403
    e = c.post("/api/enrollments/create", headers=s.headers,
               json={"domainId": d["id"], "duration": 1, "couponCode": "ONCE"}).json()["enrollment"]
    other = intern_users.student()
    assert c.post("/api/enrollments/create", headers=other.headers,
                  json={"domainId": d["id"], "duration": 1, "couponCode": "ONCE"}).status == 400
    assert c.post(f"/api/enrollments/{e['id']}/cancel", headers=other.headers).status == 404
    r = c.post(f"/api/enrollments/{e['id']}/cancel", headers=s.headers)
    assert r.status == 200 and r.json()["enrollment"]["status"] == "cancelled"
    assert c.post(f"/api/enrollments/{e['id']}/cancel", headers=s.headers).status == 409
    # the use came back and the student may enroll again
    assert c.post("/api/enrollments/create", headers=other.headers,
                  json={"domainId": d["id"], "duration": 1, "couponCode": "ONCE"}).status == 200
    assert c.post("/api/enrollments/create", headers=s.headers, json={"domainId": d["id"], "duration": 1}
                  ).status == 200


def test_max_enrollments_per_student(internships_app, intern_users, intern_seed):
    from internships.settings import settings
    from lambdakit.ddb import Table

    Table(settings().table_name).put({"pk": "SETTINGS", "sk": "SITE", "maxEnrollmentsPerStudent": 1})
    c = internships_app.internships
    admin = intern_users.staff("admin")
    d1, d2 = make_domain(c, admin), make_domain(c, admin)
    s = intern_users.student()
    assert c.post("/api/enrollments/create", headers=s.headers, json={"domainId": d1["id"], "duration": 1}
                  ).status == 200
    r = c.post("/api/enrollments/create", headers=s.headers, json={"domainId": d2["id"], "duration": 1})
    assert r.status == 409 and "Maximum" in r.json()["error"]


def test_full_discount_activates_without_payment(internships_app, intern_users, intern_seed):
    c = internships_app.internships
    admin = intern_users.staff("admin")
    d = make_domain(c, admin)
    make_coupon(c, admin, code="FREE", discount_value=100)
    s = intern_users.student()
    e = c.post("/api/enrollments/create", headers=s.headers,
               json={"domainId": d["id"], "duration": 1, "couponCode": "FREE"}).json()["enrollment"]
    assert (e["status"], e["paymentStatus"], e["amount"], e["order"]) == ("active", "free", 0, None)
    assert c.get("/api/invoices/my-invoices", headers=s.headers).json()["total"] == 0


def _webhook(c, secret, body, event_id, sig=None):
    raw = json.dumps(body)
    sig = sig or hmac.new(secret.encode(), raw.encode(), hashlib.sha256).hexdigest()
    return c.post("/api/payments/webhook", body=raw, headers={"content-type": "application/json",
                                                              "x-razorpay-signature": sig,
                                                              "x-razorpay-event-id": event_id})


def test_webhook_activates_and_dedupes(internships_app, intern_users, intern_seed):
    c = internships_app.internships
    admin = intern_users.staff("admin")
    d = make_domain(c, admin)
    s = intern_users.student()
    e = c.post("/api/enrollments/create", headers=s.headers, json={"domainId": d["id"], "duration": 1}
               ).json()["enrollment"]
    body = {"event": "payment.captured", "payload": {"payment": {"entity": {
        "id": "pay_WH1", "order_id": e["order"]["orderId"], "amount": e["order"]["amount"]}}}}
    secret = intern_seed["payments"]["webhook_secret"]
    assert _webhook(c, secret, body, "evt_1", sig="0" * 64).status == 400
    r = _webhook(c, secret, body, "evt_1")
    assert r.status == 200 and r.json()["result"] == "activated"
    assert _webhook(c, secret, body, "evt_1").json()["duplicate"] is True
    mine = c.get("/api/enrollments/my-enrollments", headers=s.headers).json()["enrollments"][0]
    assert mine["status"] == "active" and mine["paymentId"] == "pay_WH1"


def test_approve_requires_reviews_unless_forced_and_cert_states(internships_app, intern_users, intern_seed):
    c = internships_app.internships
    admin = intern_users.staff("admin")
    d = make_domain(c, admin)
    s = intern_users.student()
    e = enroll_and_pay(c, s, d, intern_seed)
    assert c.post(f"/api/admin/enrollments/{e['id']}/approve", headers=admin.headers, json={}).status == 409
    reviewer = intern_users.staff("reviewer")
    assert c.post(f"/api/admin/enrollments/{e['id']}/approve", headers=reviewer.headers, json={}).status == 403
    r = c.post(f"/api/admin/enrollments/{e['id']}/approve", headers=admin.headers, json={"force": True})
    assert r.status == 200
    cid = r.json()["certificateId"]
    pdf = c.get(f"/api/certificates/{cid}/download", headers=s.headers)
    assert pdf.status == 200 and pdf.body[:5] == b"%PDF-"
    from internships.settings import settings
    from lambdakit.ddb import Table

    t = Table(settings().table_name)
    t.update(f"CERT#{cid}", "CERT", set={"expiry_at": "2001-01-01T00:00:00.000Z"})
    assert c.get(f"/api/certificates/verify/{cid}").status == 410
    t.update(f"CERT#{cid}", "CERT", set={"revoked": True})
    assert c.get(f"/api/certificates/verify/{cid}").status == 404


def test_force_status_and_review_conflicts(internships_app, intern_users, intern_seed):
    c = internships_app.internships
    admin = intern_users.staff("admin")
    d = make_domain(c, admin)
    s = intern_users.student()
    e = enroll_and_pay(c, s, d, intern_seed)
    ms = c.get("/api/milestones", headers=s.headers, query={"enrollmentId": e["id"]}).json()["milestones"]
    reviewer = intern_users.staff("reviewer")
    assert c.post(f"/api/admin/milestones/{ms[0]['id']}/review", headers=reviewer.headers, json={}).status == 409
    assert c.post(f"/api/admin/milestones/{ms[0]['id']}/force-status", headers=reviewer.headers,
                  json={"status": "reviewed"}).status == 403
    r = c.post(f"/api/admin/milestones/{ms[0]['id']}/force-status", headers=admin.headers,
               json={"status": "reviewed", "remarks": "waived"})
    assert r.status == 200 and r.json()["milestone"]["status"] == "reviewed"
    assert c.post(f"/api/admin/milestones/{ms[0]['id']}/force-status", headers=admin.headers,
                  json={"status": "done"}).status == 400
    after = c.get("/api/milestones", headers=s.headers, query={"enrollmentId": e["id"]}).json()["milestones"]
    assert [m["locked"] for m in after] == [False, False, True]
    other = intern_users.student()
    assert c.get("/api/milestones", headers=other.headers, query={"enrollmentId": e["id"]}).status == 404
    res = c.get(f"/api/resources/{e['id']}", headers=s.headers)
    assert res.status == 200 and res.json()["weeks"] == []


def test_profile_update_avatar_and_proxy(internships_app, intern_users):
    c = internships_app.internships
    s = intern_users.student()
    r = c.put("/api/profile", headers=s.headers, json={"city": "Pune", "year_of_study": 3, "state": "Maharashtra"})
    assert r.status == 200 and r.json()["profile"]["city"] == "Pune"
    assert c.put("/api/profile", headers=s.headers, json={"email": "new@example.com"}).status == 400
    assert c.put("/api/profile", headers=s.headers, json={"role": "admin"}).status == 400
    assert c.put("/api/profile", headers=s.headers, json={"birthday": "yesterday"}).status == 400
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
    boundary = "XyZ"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n"
            f"Content-Type: image/png\r\n\r\n").encode() + png + f"\r\n--{boundary}--\r\n".encode()
    r = c.post("/api/profile/avatar", headers={**s.headers, "content-type": f"multipart/form-data; boundary={boundary}"},
               body=body)
    assert r.status == 200, r.text
    url = r.json()["avatarUrl"]
    assert c.get("/api/profile", headers=s.headers).json()["profile"]["avatar_url"] == url
    red = c.get(f"/api/avatars/{s.id}")
    assert red.status == 302 and "avatars/" in red.headers["location"]
    text = body.replace(png, b"not an image at all")
    assert c.post("/api/profile/avatar", headers={**s.headers,
                                                  "content-type": f"multipart/form-data; boundary={boundary}"},
                  body=text).status == 400
    for bad in ["http://lh3.googleusercontent.com/a.png", "https://evil.example/a.png",
                "https://169.254.169.254/latest", "file:///etc/passwd", ""]:
        assert c.get("/api/proxy-image", query={"url": bad}).status == 400, bad
