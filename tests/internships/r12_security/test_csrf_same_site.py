"""Issue 32 item 11: ``Sec-Fetch-Site: same-site`` is not CSRF proof (a sibling subdomain is
"same site"); it passes only when a setting lists the sibling origins and Origin is one of them."""
from __future__ import annotations

import pytest

REG = {"name": "Site Test", "email": "same.site@example.com", "password": "Str0ngPassw0rd", "phone": "+919812345678"}


def _value(r, name):
    for c in r.cookies:
        if c.startswith(name + "="):
            return c.split(";", 1)[0].split("=", 1)[1]
    return None


@pytest.fixture
def sibling_setting(monkeypatch):
    from lambdakit.settings import reset_settings

    def set_(value: str) -> None:
        monkeypatch.setenv("INTERNSHIPS_CSRF_SAME_SITE_ORIGINS", value)
        reset_settings()

    yield set_
    monkeypatch.delenv("INTERNSHIPS_CSRF_SAME_SITE_ORIGINS", raising=False)
    reset_settings()


def _signed_in(c):
    r = c.post("/api/auth/register", json=REG)
    assert r.status == 200, r.text
    return _value(r, "auth-token")


def test_same_site_alone_is_refused(internships_app):
    c = internships_app.internships
    access = _signed_in(c)
    r = c.post("/api/auth/logout", headers={"cookie": f"auth-token={access}", "sec-fetch-site": "same-site",
                                            "origin": "https://blog.example.com"})
    assert r.status == 403, r.text
    r = c.post("/api/auth/logout", headers={"cookie": f"auth-token={access}", "sec-fetch-site": "same-site"})
    assert r.status == 403, r.text
    # same-origin still passes
    assert c.post("/api/auth/logout", headers={"cookie": f"auth-token={access}",
                                               "sec-fetch-site": "same-origin"}).status == 200


def test_same_site_passes_only_from_a_listed_sibling(internships_app, sibling_setting):
    sibling_setting("https://app.example.com")
    c = internships_app.internships
    access = _signed_in(c)
    other = c.post("/api/auth/logout", headers={"cookie": f"auth-token={access}", "sec-fetch-site": "same-site",
                                                "origin": "https://blog.example.com"})
    assert other.status == 403
    missing = c.post("/api/auth/logout", headers={"cookie": f"auth-token={access}", "sec-fetch-site": "same-site"})
    assert missing.status == 403
    listed = c.post("/api/auth/logout", headers={"cookie": f"auth-token={access}", "sec-fetch-site": "same-site",
                                                 "origin": "https://APP.example.com"})
    assert listed.status == 200, listed.text
