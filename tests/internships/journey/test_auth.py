"""Accounts and sessions through the real handlers."""
from __future__ import annotations

import pytest


def _cookie(result, name):
    for c in result.cookies:
        if c.split("=", 1)[0] == name:
            return c
    return None


def _value(result, name):
    c = _cookie(result, name)
    return c.split("=", 1)[1].split(";", 1)[0] if c else None


REG = {"name": "Asha Rao", "email": "asha@example.com", "password": "Secur3pass", "phone": "+91 98450 12345",
       "college": "RVCE"}


def test_register_sets_cookies_with_flags_and_returns_user(internships_app):
    r = internships_app.internships.post("/api/auth/register", json=REG)
    assert r.status == 200, r.text
    body = r.json()
    assert body["success"] is True and body["token"]
    assert body["user"]["email"] == "asha@example.com" and body["user"]["role"] == "student"
    access = _cookie(r, "auth-token")
    refresh = _cookie(r, "refresh-token")
    assert "HttpOnly" in access and "SameSite=Lax" in access and "Path=/" in access
    assert "HttpOnly" in refresh and "Path=/api/auth" in refresh and "Max-Age=2592000" in refresh
    assert "Max-Age=900" in access
    # local http: no Secure flag; the cookie works for the me route
    me = internships_app.internships.get("/api/auth/me", headers={"cookie": f"auth-token={_value(r, 'auth-token')}"})
    assert me.status == 200 and me.json()["user"]["email"] == "asha@example.com"
    assert "password_hash" not in me.json()["user"]


@pytest.mark.parametrize("patch,status", [
    ({"password": "short1A"}, 400), ({"password": "alllowercase1"}, 400), ({"password": "NoDigitsHere"}, 400),
    ({"phone": ""}, 400), ({"email": "x@mailinator.com"}, 400), ({"email": "not-an-email"}, 400),
])
def test_register_rules(internships_app, patch, status):
    r = internships_app.internships.post("/api/auth/register", json={**REG, **patch}, source_ip="10.0.0.9")
    assert r.status == status, r.text
    assert isinstance(r.json()["error"], str)


def test_register_duplicate_is_409_and_rate_limited(internships_app):
    c = internships_app.internships
    assert c.post("/api/auth/register", json=REG, source_ip="10.1.0.1").status == 200
    assert c.post("/api/auth/register", json=REG, source_ip="10.1.0.1").status == 409
    assert c.post("/api/auth/register", json={**REG, "email": "b@example.com"}, source_ip="10.1.0.1").status == 200
    r = c.post("/api/auth/register", json={**REG, "email": "c@example.com"}, source_ip="10.1.0.1")
    assert r.status == 429 and "retry-after" in r.headers


def test_login_same_error_for_unknown_and_wrong_password(internships_app, intern_users):
    u = intern_users.student()
    c = internships_app.internships
    bad1 = c.post("/api/auth/login", json={"email": u.email, "password": "Wrongpass1"}, source_ip="10.2.0.1")
    bad2 = c.post("/api/auth/login", json={"email": "nobody@example.com", "password": "Wrongpass1"},
                  source_ip="10.2.0.1")
    assert bad1.status == bad2.status == 401 and bad1.json() == bad2.json()
    good = c.post("/api/auth/login", json={"email": u.email, "password": u.password}, source_ip="10.2.0.2")
    assert good.status == 200 and _value(good, "refresh-token")


def test_login_rate_limit_per_ip(internships_app, intern_users):
    u = intern_users.student()
    c = internships_app.internships
    codes = [c.post("/api/auth/login", json={"email": u.email, "password": u.password}, source_ip="10.3.0.1").status
             for _ in range(6)]
    assert codes == [200] * 5 + [429]


def test_failures_back_off_the_address_not_the_account(internships_app, intern_users, monkeypatch):
    """Issue #17 item 14: the back-off is per (account, IP); the owner at another address signs in
    (the cross-address ceiling is tests/internships/r4_auth/test_throttle.py)."""
    from lambdakit import clock
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("INTERNSHIPS_LOGIN_RATE_PER_MINUTE", "100")  # only the back-off is tested here
    reset_settings()
    u = intern_users.student()
    c = internships_app.internships
    for _ in range(5):
        r = c.post("/api/auth/login", json={"email": u.email, "password": "Wrongpass1"}, source_ip="10.4.0.1")
        assert r.status == 401
    r = c.post("/api/auth/login", json={"email": u.email, "password": u.password}, source_ip="10.4.0.1")
    assert r.status == 429 and int(r.headers["retry-after"]) > 0
    r = c.post("/api/auth/login", json={"email": u.email, "password": u.password}, source_ip="10.4.9.9")
    assert r.status == 200
    clock.set_offset(31)
    try:
        r = c.post("/api/auth/login", json={"email": u.email, "password": u.password}, source_ip="10.4.0.1")
        assert r.status == 200
    finally:
        clock.set_offset(0)


def test_refresh_rotates_and_reuse_kills_family(internships_app):
    c = internships_app.internships
    r = c.post("/api/auth/register", json=REG)
    old = _value(r, "refresh-token")
    csrf = _value(r, "csrf-token")
    h = {"cookie": f"refresh-token={old}; csrf-token={csrf}", "x-csrf-token": csrf}
    r2 = c.post("/api/auth/refresh", headers=h)
    assert r2.status == 200, r2.text
    new = _value(r2, "refresh-token")
    assert new and new != old and r2.json()["user"]["email"] == REG["email"]
    # the old token again: reuse → 401, and the whole family (incl. the new token) is revoked
    assert c.post("/api/auth/refresh", headers=h).status == 401
    csrf2 = _value(r2, "csrf-token")
    r3 = c.post("/api/auth/refresh", headers={"cookie": f"refresh-token={new}; csrf-token={csrf2}",
                                               "x-csrf-token": csrf2})
    assert r3.status == 401


def test_refresh_needs_csrf_proof_for_cookie(internships_app):
    c = internships_app.internships
    r = c.post("/api/auth/register", json=REG)
    old = _value(r, "refresh-token")
    assert c.post("/api/auth/refresh", headers={"cookie": f"refresh-token={old}"}).status == 403
    ok = c.post("/api/auth/refresh", headers={"cookie": f"refresh-token={old}", "origin": "http://127.0.0.1:3003"})
    assert ok.status == 200


def test_logout_revokes_and_clears(internships_app):
    c = internships_app.internships
    r = c.post("/api/auth/register", json=REG)
    refresh, token = _value(r, "refresh-token"), r.json()["token"]
    out = c.post("/api/auth/logout", headers={"Authorization": f"Bearer {token}", "cookie": f"refresh-token={refresh}"})
    assert out.status == 200
    assert "Max-Age=0" in _cookie(out, "auth-token") and "Max-Age=0" in _cookie(out, "refresh-token")
    again = c.post("/api/auth/refresh", headers={"cookie": f"refresh-token={refresh}", "sec-fetch-site": "same-origin"})
    assert again.status == 401


def test_cookie_auth_unsafe_method_needs_csrf(internships_app):
    c = internships_app.internships
    r = c.post("/api/auth/register", json=REG)
    access, csrf = _value(r, "auth-token"), _value(r, "csrf-token")
    assert c.post("/api/auth/logout", headers={"cookie": f"auth-token={access}"}).status == 403
    assert c.post("/api/auth/logout", headers={"cookie": f"auth-token={access}", "origin": "https://evil.example"}
                  ).status == 403
    assert c.post("/api/auth/logout", headers={"cookie": f"auth-token={access}", "sec-fetch-site": "cross-site"}
                  ).status == 403
    assert c.post("/api/auth/logout", headers={"cookie": f"auth-token={access}; csrf-token={csrf}",
                                                "x-csrf-token": csrf}).status == 200


def test_permissions_by_role(internships_app, intern_users):
    c = internships_app.internships
    assert c.get("/api/auth/permissions").status == 401
    s = intern_users.student()
    assert c.get("/api/auth/permissions", headers=s.headers).json()["permissions"] == []
    rv = intern_users.staff("reviewer")
    assert set(c.get("/api/auth/permissions", headers=rv.headers).json()["permissions"]) == {
        "review_milestones", "view_analytics", "view_students"}
    sa = intern_users.staff("super_admin")
    assert len(c.get("/api/auth/permissions", headers=sa.headers).json()["permissions"]) == 22


def test_bad_and_expired_tokens(internships_app, intern_users):
    c = internships_app.internships
    assert c.get("/api/auth/me", headers={"Authorization": "Bearer nonsense"}).status == 401
    u = intern_users.student()
    from lambdakit import clock

    clock.set_offset(16 * 60)
    try:
        r = c.get("/api/auth/me", headers=u.headers)
        assert r.status == 401 and r.json()["error"]
    finally:
        clock.set_offset(0)
