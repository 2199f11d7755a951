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
    import math

    from lambdakit.settings import reset_settings

    monkeypatch.setenv("INTERNSHIPS_COUPON_VALIDATE_IP_RATE", "5/minute")
    reset_settings()
    c = catalog["c"]
    students = [intern_users.student() for _ in range(3)]
    now = clock.now_ts()  # start at a minute window's beginning: a slow run never crosses a boundary
    clock.set_offset(math.ceil(now / 60) * 60 + 1 - now)
    try:
        codes = [c.post("/api/coupons/validate", json={"code": f"GUESS{i}"}, headers=students[i % 3].headers,
                        source_ip="10.32.0.1").status for i in range(6)]
        assert codes == [200] * 5 + [429]
        assert c.post("/api/coupons/validate", json={"code": "GUESS"}, headers=students[0].headers,
                      source_ip="10.32.0.2").status == 200
    finally:
        clock.set_offset(0)


# ---------------------------------------------------------------- issue #17 item 10: enroll is no oracle either
def _enroll(c, st, domain, code, ip):
    return c.post("/api/enrollments/create", json={"domainId": domain["id"], "duration": 1, "couponCode": code},
                  headers=st.headers, source_ip=ip)


def _validate(c, st, domain, code, ip):
    return c.post("/api/coupons/validate", json={"code": code, "domainId": domain["id"], "amount": 1000},
                  headers=st.headers, source_ip=ip)


def _rate(monkeypatch, name: str, spec: str) -> None:
    from lambdakit.settings import reset_settings

    monkeypatch.setenv(name, spec)
    reset_settings()


def test_enroll_coupon_tries_share_the_per_user_budget(internships_app, intern_users, intern_seed, catalog,
                                                      monkeypatch):
    """40 wrong codes through enroll used to all answer 400 (and a real one 200): now each try counts
    against the validate route's per-user limit, and over it enroll answers 429 + Retry-After."""
    _rate(monkeypatch, "INTERNSHIPS_COUPON_VALIDATE_USER_RATE", "3/minute")
    c, d = catalog["c"], catalog["domain"]
    st = intern_users.student()
    codes = [_enroll(c, st, d, f"GUESS{i}", f"10.33.0.{i}") for i in range(3)]
    assert [r.status for r in codes] == [400, 400, 400]
    r = _enroll(c, st, d, "GOODCODE", "10.33.0.9")  # even the real code: the budget is spent
    assert r.status == 429 and int(r.headers["retry-after"]) > 0, r.text
    assert r.json() == {"error": "Too many coupon checks; try again later"}
    # one budget for both routes: validate is refused too
    assert _validate(c, st, d, "GOODCODE", "10.33.0.10").status == 429
    # enrolling without a coupon is not a coupon try
    assert c.post("/api/enrollments/create", json={"domainId": d["id"], "duration": 1}, headers=st.headers,
                  source_ip="10.33.0.11").status == 200
    # another student is not affected
    other = intern_users.student()
    assert _enroll(c, other, d, "GOODCODE", "10.33.0.12").status == 200


def test_alternating_validate_and_enroll_does_not_double_the_budget(internships_app, intern_users, catalog,
                                                                    monkeypatch):
    _rate(monkeypatch, "INTERNSHIPS_COUPON_VALIDATE_USER_RATE", "4/minute")
    c, d = catalog["c"], catalog["domain"]
    st = intern_users.student()
    got = []
    for i in range(6):
        send = _validate if i % 2 == 0 else _enroll
        got.append(send(c, st, d, f"GUESS{i}", f"10.34.0.{i}").status)
    assert got == [200, 400, 200, 400, 429, 429], got


def test_enroll_coupon_tries_share_the_per_ip_budget(internships_app, intern_users, intern_seed, catalog,
                                                    monkeypatch):
    _rate(monkeypatch, "INTERNSHIPS_COUPON_VALIDATE_IP_RATE", "5/minute")
    c, d = catalog["c"], catalog["domain"]
    students = [intern_users.student() for _ in range(6)]
    got = [(_validate if i < 2 else _enroll)(c, s, d, f"GUESS{i}", "10.35.0.1").status
           for i, s in enumerate(students)]
    assert got == [200, 200, 400, 400, 400, 429], got
    r = _enroll(c, students[5], d, "GOODCODE", "10.35.0.1")
    assert r.status == 429 and r.headers["retry-after"] and r.json() == {
        "error": "Too many coupon checks; try again later"}
    assert _enroll(c, students[5], d, "GOODCODE", "10.35.0.2").status == 200  # another address


def test_losing_the_race_for_the_last_use_gets_the_one_message(internships_app, intern_users, intern_seed, catalog,
                                                               monkeypatch):
    """Two students read LASTONE while one use is left; the first redeems it, the second's transaction
    fails its condition: the same "not valid" answer as every other unusable code."""
    from internships.coupons import service as coupons

    c, d = catalog["c"], catalog["domain"]
    from tests.internships.journey.helpers import make_coupon

    make_coupon(c, intern_users.staff("super_admin"), code="LASTONE", max_uses=1)
    first, second = intern_users.student(), intern_users.student()
    seen = coupons.usable("LASTONE", d["id"])  # what the second request read before the first committed
    assert _enroll(c, first, d, "LASTONE", "10.36.0.1").status == 200
    monkeypatch.setattr(coupons, "usable", lambda code, domain_id: seen)
    r = _enroll(c, second, d, "LASTONE", "10.36.0.2")
    assert r.status == 400 and r.json() == {"error": NOT_VALID}, r.text
