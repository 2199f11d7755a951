"""Issue #17 item 10: coupon enumeration. One answer for every coupon a student cannot use, and
``POST /api/coupons/validate`` rate limited per user and per IP."""
from __future__ import annotations

import datetime

import pytest

from lambdakit import clock
from tests.internships.journey.helpers import make_coupon, make_domain

NOT_VALID = "This coupon code is not valid"


@pytest.fixture
def catalog(internships_app, intern_users):
    c = internships_app.internships
    admin = intern_users.staff("super_admin")
    d1, d2 = make_domain(c, admin), make_domain(c, admin)
    good = make_coupon(c, admin, code="GOODCODE")
    soon = clock.iso(clock.now() + datetime.timedelta(seconds=60))
    expired = make_coupon(c, admin, code="OLDCODE", expires_at=soon)
    used_up = make_coupon(c, admin, code="USEDUP", max_uses=1)
    make_coupon(c, admin, code="OFFCODE", is_active=False)
    make_coupon(c, admin, code="OTHERDOM", domain_ids=[d2["id"]])
    from internships.store import table

    table().update(f"COUPON#{used_up['id']}", "COUPON", set={"used_count": 1})
    return {"c": c, "domain": d1, "good": good, "expired": expired}


def test_every_unusable_coupon_gets_the_same_answer(internships_app, intern_users, catalog):
    c, d = catalog["c"], catalog["domain"]
    st = intern_users.student()
    clock.set_offset(120)  # OLDCODE expired a minute ago
    try:
        answers = {}
        for code in ("NOSUCHCODE", "OLDCODE", "USEDUP", "OFFCODE", "OTHERDOM"):
            r = c.post("/api/coupons/validate", json={"code": code, "domainId": d["id"], "amount": 1000},
                       headers=st.headers, source_ip=f"10.30.0.{len(answers)}")
            assert r.status == 200, r.text
            answers[code] = r.json()
        assert all(a == {"success": True, "valid": False, "discount": 0, "coupon": None, "message": NOT_VALID}
                   for a in answers.values()), answers
        ok = c.post("/api/coupons/validate", json={"code": "goodcode", "domainId": d["id"], "amount": 1000},
                    headers=st.headers, source_ip="10.30.1.1").json()
        assert ok["valid"] is True and ok["discount"] == 100 and ok["finalAmount"] == 900
        # enrolling with one: the same single message, in the error format
        for code in ("NOSUCHCODE", "OLDCODE", "USEDUP"):
            r = c.post("/api/enrollments/create", json={"domainId": d["id"], "duration": 1, "couponCode": code},
                       headers=st.headers)
            assert r.status == 400 and r.json() == {"error": NOT_VALID}
    finally:
        clock.set_offset(0)


def test_validate_is_rate_limited_per_user(internships_app, intern_users, catalog, monkeypatch):
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("INTERNSHIPS_COUPON_VALIDATE_USER_RATE", "3/minute")
    reset_settings()
    c, d = catalog["c"], catalog["domain"]
    st = intern_users.student()
    codes = [c.post("/api/coupons/validate", json={"code": f"GUESS{i}", "domainId": d["id"]}, headers=st.headers,
                    source_ip=f"10.31.0.{i}").status for i in range(4)]
    assert codes == [200, 200, 200, 429]
    r = c.post("/api/coupons/validate", json={"code": "GOODCODE"}, headers=st.headers, source_ip="10.31.1.1")
    assert r.status == 429 and int(r.headers["retry-after"]) > 0 and r.json() == {
        "error": "Too many coupon checks; try again later"}
    other = intern_users.student()
    assert c.post("/api/coupons/validate", json={"code": "GOODCODE"}, headers=other.headers,
                  source_ip="10.31.1.1").status == 200
    r = c.post("/api/coupons/validate", json={"code": "GOODCODE"}, source_ip="10.31.1.1")  # still signed in only
    assert r.status == 401 and set(r.json()) == {"error"}


def test_validate_is_rate_limited_per_ip(internships_app, intern_users, catalog, monkeypatch):
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("INTERNSHIPS_COUPON_VALIDATE_IP_RATE", "5/minute")
    reset_settings()
    c = catalog["c"]
    students = [intern_users.student() for _ in range(3)]
    codes = [c.post("/api/coupons/validate", json={"code": f"GUESS{i}"}, headers=students[i % 3].headers,
                    source_ip="10.32.0.1").status for i in range(6)]
    assert codes == [200] * 5 + [429]
    assert c.post("/api/coupons/validate", json={"code": "GUESS"}, headers=students[0].headers,
                  source_ip="10.32.0.2").status == 200
