"""Issue #19 item 1: Google sign-in against the local OpenID provider (the stand-in ``make dev``
starts), through the real handlers. The provider's own endpoints are reached over loopback HTTP."""
from __future__ import annotations

import base64
import hashlib
import json

import pytest

from tests.internships.r4_auth.helpers import (
    CALLBACK,
    authorize,
    callback,
    error_of,
    provider_post,
    start,
    token_for,
)

STUDENT = "student.google@example.com"


def _users_count() -> int:
    from internships.store import table

    return int((table().get("COUNTERS", "users") or {}).get("count", 0))


def _user_id(email: str) -> str | None:
    from internships.accounts import repository

    return repository.user_id_for_email(email)


def test_start_sends_every_parameter_and_a_signed_httponly_state_cookie(internships_app, google):
    c = internships_app.internships
    r = c.get("/api/auth/google")
    assert r.status == 302 and r.headers["cache-control"] == "no-store"
    q, cookie, loc = start(c)
    assert loc.startswith(google.issuer + "/oauth2/authorize?")  # from the discovery document
    assert q["response_type"] == "code" and q["client_id"] == google.client_id and q["redirect_uri"] == CALLBACK
    assert {"openid", "email", "profile"} <= set(q["scope"].split())
    assert q["state"] and q["nonce"] and q["state"] != q["nonce"]
    assert q["code_challenge_method"] == "S256" and len(q["code_challenge"]) == 43
    raw = next(ck for ck in r.cookies if ck.startswith("oauth-state="))
    assert "HttpOnly" in raw and "Path=/api/auth/google" in raw and "Max-Age=600" in raw and "SameSite=Lax" in raw
    # signed with its own key (issue #17 item 15), not the access-token key
    from internships.auth import tokens
    from lambdakit.security import verify_token

    value = cookie.split("=", 1)[1]
    assert tokens.oauth_state_key() and tokens.oauth_state_key() != tokens.signing_key()
    payload = verify_token(tokens.oauth_state_key(), value)
    assert payload is not None and verify_token(tokens.signing_key(), value) is None
    st = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert st["s"] == q["state"] and st["n"] == q["nonce"]
    assert base64.urlsafe_b64encode(hashlib.sha256(st["v"].encode()).digest()).decode().rstrip("=") == \
        q["code_challenge"]


def test_sign_in_creates_the_account_then_signs_in_to_it_again(internships_app, google, capsys):
    c = internships_app.internships
    before = _users_count()
    q, cookie, loc = start(c)
    r = callback(c, authorize(loc, STUDENT), cookie)
    assert r.status == 302 and r.headers["location"] == "http://127.0.0.1:3003/dashboard", r.headers
    names = {ck.split("=", 1)[0]: ck for ck in r.cookies}
    # the same cookies as a password sign-in, and the state cookie cleared
    assert {"auth-token", "refresh-token", "csrf-token", "oauth-state"} <= set(names)
    assert "HttpOnly" in names["auth-token"] and "Path=/api/auth" in names["refresh-token"]
    assert "Max-Age=0" in names["oauth-state"]
    token = names["auth-token"].split(";")[0].split("=", 1)[1]
    me = c.get("/api/auth/me", headers={"Authorization": f"Bearer {token}"}).json()["user"]
    assert me["email"] == STUDENT and me["name"] == "Google Student" and me["has_password"] is False
    assert _users_count() == before + 1
    # again: the same account, nothing created
    q2, cookie2, loc2 = start(c)
    r2 = callback(c, authorize(loc2, STUDENT), cookie2)
    assert r2.headers["location"].endswith("/dashboard")
    token2 = next(ck for ck in r2.cookies if ck.startswith("auth-token=")).split(";")[0].split("=", 1)[1]
    assert c.get("/api/auth/me", headers={"Authorization": f"Bearer {token2}"}).json()["user"]["id"] == me["id"]
    assert _users_count() == before + 1
    # issue #18: Registrations once, SignIns{method=google} twice
    docs = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith('{"_aws"')]
    sign_ins = [d for d in docs if "SignIns" in d]
    assert len(sign_ins) == 2 and all(d["method"] == "google" for d in sign_ins)
    assert sum(1 for d in docs if "Registrations" in d) == 1


def test_links_the_existing_verified_account_with_the_same_email(internships_app, google, intern_users):
    c = internships_app.internships
    u = intern_users.student(email="linked.user@example.com")
    google.put_user("linked-sub-1", {"email": "linked.user@example.com", "email_verified": True, "name": "L"})
    before = _users_count()
    q, cookie, loc = start(c)
    r = callback(c, authorize(loc, "linked-sub-1"), cookie)
    assert r.headers["location"].endswith("/dashboard"), r.headers
    from internships.accounts import repository

    user = repository.get_user(u.id, consistent=True)
    assert user["google_sub"] == "linked-sub-1" and user["password_hash"]  # password kept, Google linked
    assert _users_count() == before
    # the password still works too
    assert c.post("/api/auth/login", json={"email": u.email, "password": u.password}).status == 200


def _refused(c, r, reason: str, email: str | None, before: int) -> None:
    assert r.status == 302 and error_of(r) == reason, r.headers
    assert r.headers["location"].startswith("http://127.0.0.1:3003/login?error=")
    assert not any(ck.startswith(("auth-token=", "refresh-token=")) for ck in r.cookies)
    assert _users_count() == before
    if email:
        assert _user_id(email) is None


@pytest.mark.parametrize("case", ["wrong_state", "missing_state", "no_cookie", "forged_cookie"])
def test_state_must_match_the_signed_cookie(internships_app, google, case):
    c = internships_app.internships
    before = _users_count()
    q, cookie, loc = start(c)
    cb = authorize(loc, STUDENT)
    if case == "wrong_state":
        cb["state"] = "forged-state"
    elif case == "missing_state":
        cb.pop("state")
    elif case == "no_cookie":
        cookie = None
    else:
        name, value = cookie.split("=", 1)
        payload, _, sig = value.rpartition(".")
        cookie = f"{name}={payload}.{'A' * len(sig)}"
    _refused(c, callback(c, cb, cookie), "invalid_state", STUDENT, before)


def test_replayed_callback_and_replayed_code_are_refused(internships_app, google):
    c = internships_app.internships
    q, cookie, loc = start(c)
    cb = authorize(loc, STUDENT)
    assert callback(c, cb, cookie).headers["location"].endswith("/dashboard")
    before = _users_count()
    # the very same callback again (state, cookie and code replayed): the state was claimed once
    _refused(c, callback(c, cb, cookie), "state_already_used", None, before)
    # the used code injected into a fresh sign-in: the provider refuses it
    q2, cookie2, _ = start(c)
    _refused(c, callback(c, {"code": cb["code"], "state": q2["state"]}, cookie2), "code_rejected", None, before)
    # the provider's own refusal, and a callback without a code
    q3, cookie3, _ = start(c)
    _refused(c, callback(c, {"error": "access_denied", "state": q3["state"]}, cookie3), "access_denied", None, before)
    q4, cookie4, _ = start(c)
    _refused(c, callback(c, {"state": q4["state"]}, cookie4), "missing_code", None, before)


def test_provider_enforces_pkce(internships_app, google):
    """The stand-in checks the verifier like Google: a code issued for one challenge is refused with
    another verifier (so the service's verifier really travels in the exchange)."""
    c = internships_app.internships
    q, cookie, loc = start(c)
    cb = authorize(loc, STUDENT)
    status, _, body = provider_post(google.issuer + "/oauth2/token", {
        "grant_type": "authorization_code", "code": cb["code"], "redirect_uri": CALLBACK,
        "client_id": google.client_id, "client_secret": google.client_secret, "code_verifier": "wrong" * 10})
    assert status == 400 and json.loads(body)["error"] == "invalid_grant"


def test_token_for_another_audience_is_refused(internships_app, google, oidc_provider, monkeypatch):
    """A genuine ID token the provider issued to another client (e.g. pasted in by an attacker)."""
    from internships.accounts import google as google_flow
    from internships.accounts import oidc

    c = internships_app.internships
    other_id, other_secret = oidc_provider.register_client(["http://127.0.0.1:9/cb"])
    before = _users_count()
    q, cookie, loc = start(c)
    cb = authorize(loc, STUDENT)
    foreign = token_for(oidc_provider, other_id, other_secret, STUDENT, q["nonce"], "http://127.0.0.1:9/cb")
    real_exchange = oidc.exchange_code

    def exchange(**kw):
        real_exchange(**kw)  # the code itself is fine ...
        return {"id_token": foreign}  # ... but the token handed back is for the other client

    monkeypatch.setattr(google_flow.oidc, "exchange_code", exchange)
    _refused(c, callback(c, cb, cookie), "invalid_audience", STUDENT, before)


def test_token_of_another_sign_in_fails_the_nonce(internships_app, google, monkeypatch):
    from internships.accounts import google as google_flow
    from internships.accounts import oidc

    c = internships_app.internships
    before = _users_count()
    q, cookie, loc = start(c)
    cb = authorize(loc, STUDENT)
    other = token_for(google, google.client_id, google.client_secret, STUDENT, "some-other-nonce", CALLBACK)
    real_exchange = oidc.exchange_code
    monkeypatch.setattr(google_flow.oidc, "exchange_code", lambda **kw: (real_exchange(**kw), {"id_token": other})[1])
    _refused(c, callback(c, cb, cookie), "invalid_nonce", STUDENT, before)


@pytest.mark.parametrize("sub,claims,reason", [
    ("unverified.google@example.com", None, "email_not_verified"),          # a predefined unverified user
    ("typed.subject@example.com", None, "email_not_verified"),              # only {"email": sub}: no claim
    ("throwaway-1", {"email": "x1@mailinator.com", "email_verified": True}, "disposable_email"),
    ("str-verified", {"email": "y1@example.com", "email_verified": "false"}, "email_not_verified"),
])
def test_unverified_and_disposable_emails_are_refused(internships_app, google, sub, claims, reason):
    c = internships_app.internships
    if claims:
        google.put_user(sub, claims)
    email = (claims or {}).get("email", sub)
    before = _users_count()
    q, cookie, loc = start(c)
    _refused(c, callback(c, authorize(loc, sub), cookie), reason, email, before)


def test_deployed_stage_refuses_a_loopback_or_plain_http_provider(internships_app, google, monkeypatch):
    """SSRF rules on the provider calls: only ``Stage=local`` may reach the loopback stand-in."""
    from internships.accounts import oidc
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("INTERNSHIPS_STAGE", "prod")
    reset_settings()
    oidc.forget()
    r = internships_app.internships.get("/api/auth/google")
    assert r.status == 302 and error_of(r) == "provider_unavailable"
    for url in (google.issuer + "/jwks", "https://127.0.0.1/jwks", "https://10.0.0.1/token",
                "https://169.254.169.254/latest/meta-data/", "http://accounts.google.com/"):
        with pytest.raises(oidc.ProviderError) as exc:
            oidc.fetch_json(url)
        assert exc.value.reason == "unsafe_provider_url"
