"""Issue #19 item 1, end to end: Google sign-in on the running local runtime (``make dev``), whose
OpenID provider stands in for Google on 127.0.0.1 (``.local/dev.json`` → ``internships.google``).
Driven as a browser would: the service's 302, the provider's sign-in form, the callback."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import requests


def _sign_in(block: dict, sub: str) -> tuple[requests.Session, requests.Response, dict]:
    g = block["google"]
    s = requests.Session()
    r = s.get(g["sign_in_url"], allow_redirects=False, timeout=10)
    assert r.status_code == 302, r.text
    auth = r.headers["location"]
    q = {k: v[0] for k, v in parse_qs(urlsplit(auth).query).items()}
    assert auth.startswith(g["issuer"] + "/") and q["client_id"] == g["client_id"]
    form = requests.get(auth, timeout=10)  # the provider's sign-in page
    assert form.status_code == 200 and g["test_user"]["sub"] in form.text
    back = requests.post(auth, data={"sub": sub}, allow_redirects=False, timeout=10)
    assert back.status_code == 302 and back.headers["location"].startswith(block["base_url"] + "/api/auth/google/"
                                                                          "callback?")
    cb = s.get(back.headers["location"], allow_redirects=False, timeout=30)
    return s, cb, {"callback": back.headers["location"], "state_cookie": r.cookies.get("oauth-state"), **q}


def test_dev_json_tells_how_to_sign_in_with_the_google_stand_in(intern):
    base, block = intern
    g = block["google"]
    assert g["issuer"].startswith("http://127.0.0.1:") and g["client_id"] and g["sign_in_url"] == \
        base + "/api/auth/google"
    assert g["test_user"]["email_verified"] is True and "how_to_sign_in" in g
    disc = requests.get(g["discovery_url"], timeout=10).json()
    assert disc["issuer"] == g["issuer"] and disc["token_endpoint"].startswith(g["issuer"])


def test_google_sign_in_end_to_end(intern):
    base, block = intern
    sub = block["google"]["test_user"]["sub"]
    s, cb, q = _sign_in(block, sub)
    assert q["response_type"] == "code" and q["code_challenge_method"] == "S256" and q["nonce"] and q["state"]
    assert {"openid", "email", "profile"} <= set(q["scope"].split())
    assert cb.status_code == 302 and cb.headers["location"] == base + "/dashboard", cb.headers
    assert {"auth-token", "refresh-token", "csrf-token"} <= set(s.cookies.keys())
    me = s.get(base + "/api/auth/me", timeout=10)
    assert me.status_code == 200 and me.json()["user"]["email"] == block["google"]["test_user"]["email"]
    uid = me.json()["user"]["id"]
    # the same callback replayed with the state cookie kept: refused, nothing signed in
    replay = requests.get(q["callback"], cookies={"oauth-state": q["state_cookie"]}, allow_redirects=False,
                          timeout=30)
    assert replay.status_code == 302 and replay.headers["location"] == base + "/login?error=state_already_used"
    assert "auth-token" not in replay.cookies
    # signing in again reaches the same account
    s2, cb2, _ = _sign_in(block, sub)
    assert cb2.headers["location"] == base + "/dashboard"
    assert s2.get(base + "/api/auth/me", timeout=10).json()["user"]["id"] == uid


def test_unverified_google_user_is_refused_end_to_end(intern):
    base, block = intern
    s, cb, _ = _sign_in(block, block["google"]["unverified_user"])
    assert cb.status_code == 302 and cb.headers["location"] == base + "/login?error=email_not_verified"
    assert "auth-token" not in s.cookies
