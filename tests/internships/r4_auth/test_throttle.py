"""Issue #17 item 14: credential throttling per (account, IP) with exponential back-off, plus a
per-account ceiling that slows and never locks (OWASP ASVS 5.0 V6.3), on login and reset-password."""
from __future__ import annotations

import pytest

from lambdakit import clock


@pytest.fixture
def fast(monkeypatch):
    """The per-IP request rate out of the way (its own tests are in journey/test_auth.py), a small
    account ceiling so the test stays short."""
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("INTERNSHIPS_LOGIN_RATE_PER_MINUTE", "1000")
    monkeypatch.setenv("INTERNSHIPS_LOGIN_ACCOUNT_CEILING", "8")
    reset_settings()
    yield
    clock.set_offset(0)


def _login(c, email, password, ip):
    return c.post("/api/auth/login", json={"email": email, "password": password}, source_ip=ip)


def test_back_off_grows_exponentially_for_one_address_only(internships_app, intern_users, fast):
    u = intern_users.student()
    c = internships_app.internships
    for _ in range(5):
        assert _login(c, u.email, "Wrongpass1", "10.20.0.1").status == 401
    r = _login(c, u.email, u.password, "10.20.0.1")
    assert r.status == 429 and 25 <= int(r.headers["retry-after"]) <= 31
    assert r.json() == {"error": "Too many failed attempts from this address; try again later"}
    # the owner elsewhere is not affected
    assert _login(c, u.email, u.password, "10.20.0.2").status == 200
    clock.set_offset(31)
    assert _login(c, u.email, "Wrongpass1", "10.20.0.1").status == 401  # 6th failure: 60 s now
    r = _login(c, u.email, u.password, "10.20.0.1")
    assert r.status == 429 and 55 <= int(r.headers["retry-after"]) <= 61
    clock.set_offset(31 + 61)
    assert _login(c, u.email, u.password, "10.20.0.1").status == 200  # success clears the pair
    assert _login(c, u.email, "Wrongpass1", "10.20.0.1").status == 401
    assert _login(c, u.email, u.password, "10.20.0.1").status == 200
    # unknown accounts are throttled exactly the same (no enumeration through 429s)
    codes = [_login(c, "nobody.here@example.com", "Wrongpass1", "10.20.0.1").status for _ in range(6)]
    assert codes == [401] * 5 + [429]
    assert _login(c, "nobody.here@example.com", "Wrongpass1", "10.20.0.9").status == 401


def test_many_addresses_slow_the_account_but_never_lock_it(internships_app, intern_users, fast):
    """Eight addresses each fail once (none reaches its own back-off): at the ceiling of 8 the
    account gets one try per 5 s from anywhere; the owner still gets in a few seconds later."""
    u = intern_users.student()
    c = internships_app.internships
    start = -(clock.now_ts() % 3600) + 5  # 5 s into an hour window: the whole test stays in it
    clock.set_offset(start)
    for i in range(8):
        assert _login(c, u.email, "Wrongpass1", f"10.21.{i}.1").status == 401
    first = _login(c, u.email, "Wrongpass1", "10.21.99.1")  # takes this 5-second slot
    assert first.status == 401
    r = _login(c, u.email, u.password, "10.21.50.50")  # the owner, same slot
    assert r.status == 429 and 1 <= int(r.headers["retry-after"]) <= 5
    assert r.json() == {"error": "Too many attempts for this account; try again in a few seconds"}
    clock.set_offset(start + 5)
    assert _login(c, u.email, u.password, "10.21.50.50").status == 200  # slowed, not locked


def test_reset_password_backs_off_the_guessing_address(internships_app, fast):
    c = internships_app.internships
    body = {"token": "not-a-real-token", "password": "N3wPassword"}
    for _ in range(5):
        r = c.post("/api/auth/reset-password", json=body, source_ip="10.23.0.1")
        assert r.status == 400 and r.json() == {"error": "This link is invalid or has expired"}
    r = c.post("/api/auth/reset-password", json=body, source_ip="10.23.0.1")
    assert r.status == 429 and int(r.headers["retry-after"]) > 0
    assert c.post("/api/auth/reset-password", json=body, source_ip="10.23.0.2").status == 400
    # bad tokens from many addresses slow nobody else (a token names no account: no ceiling)
    for i in range(10):
        assert c.post("/api/auth/reset-password", json=body, source_ip=f"10.24.{i}.1").status == 400
    assert [c.post("/api/auth/reset-password", json=body, source_ip="10.25.0.1").status for _ in range(2)] == \
        [400, 400]
