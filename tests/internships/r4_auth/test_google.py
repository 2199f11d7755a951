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


ORIGIN = {"origin": "http://127.0.0.1:3003"}


def _google_sign_in(c, sub: str):
    """A full Google sign-in as ``sub``: the callback's response."""
    q, cookie, loc = start(c)
    return callback(c, authorize(loc, sub), cookie)


def _cookie_value(r, name: str) -> str:
    return next(ck for ck in r.cookies if ck.startswith(name + "=")).split(";")[0].split("=", 1)[1]


def _refresh(c, token: str):
    return c.post("/api/auth/refresh", headers={"cookie": f"refresh-token={token}", **ORIGIN})


def test_pre_registered_password_account_is_taken_over_by_the_verified_google_owner(internships_app, google,
                                                                                    intern_users):
    """Issue #19 item 1. Someone registered the victim's address with a password (never verified: this
    service sends no verification mail). When the victim signs in with Google (a verified e-mail), the
    account is linked as Firebase Auth does it: Google linked, e-mail marked verified, the password
    removed and every session opened before revoked - the squatter keeps no way in."""
    c = internships_app.internships
    squatter = intern_users.student(email="victim.user@example.com")
    login = c.post("/api/auth/login", json={"email": squatter.email, "password": squatter.password})
    assert login.status == 200
    old_refresh = _cookie_value(login, "refresh-token")
    google.put_user("victim-sub-1", {"email": "victim.user@example.com", "email_verified": True, "name": "Victim"})
    before = _users_count()
    r = _google_sign_in(c, "victim-sub-1")
    assert r.headers["location"].endswith("/dashboard"), r.headers
    assert _users_count() == before  # linked, not created
    from internships.accounts import repository

    user = repository.get_user(squatter.id, consistent=True)
    assert user["google_sub"] == "victim-sub-1" and user["email_verified"] is True
    assert "password_hash" not in user and user["sessions_revoked_at"]
    # the old password no longer signs in
    assert c.post("/api/auth/login", json={"email": squatter.email, "password": squatter.password}).status == 401
    # the squatter's refresh token and access token are refused
    refused = _refresh(c, old_refresh)
    assert refused.status == 401, refused.text
    assert c.get("/api/auth/me", headers=squatter.headers).status == 401
    assert c.get("/api/auth/me", headers={"Authorization": f"Bearer {login.json()['token']}"}).status == 401
    # the Google sign-in's own session works, and says the account is verified without a password
    me = c.get("/api/auth/me", headers={"Authorization": f"Bearer {_cookie_value(r, 'auth-token')}"}).json()["user"]
    assert me["id"] == squatter.id and me["has_password"] is False and me["email_verified"] is True
    assert "sessions_revoked_at" not in me
    assert _refresh(c, _cookie_value(r, "refresh-token")).status == 200


def test_a_verified_google_linked_account_just_signs_in(internships_app, google, intern_users):
    """Already linked (verified): Google sign-in changes nothing - a password set later through a
    set-password link keeps working and sessions opened before are not revoked."""
    from internships.accounts import repository
    from internships.admin_people import passwords

    c = internships_app.internships
    google.put_user("owner-sub-1", {"email": "owner.user@example.com", "email_verified": True, "name": "Owner"})
    first = _google_sign_in(c, "owner-sub-1")
    uid = _user_id("owner.user@example.com")
    link, _ = passwords.issue_set_password_link(uid, purpose="test")
    token = link.split("token=", 1)[1]
    assert c.post("/api/auth/reset-password", json={"token": token, "password": "Own3rPassw0rd"}).status == 200
    login = c.post("/api/auth/login", json={"email": "owner.user@example.com", "password": "Own3rPassw0rd"})
    assert login.status == 200
    stored = repository.get_user(uid, consistent=True)
    again = _google_sign_in(c, "owner-sub-1")
    assert again.headers["location"].endswith("/dashboard")
    after = repository.get_user(uid, consistent=True)
    assert after["password_hash"] == stored["password_hash"]
    assert after.get("token_version") == stored.get("token_version") and "sessions_revoked_at" not in after
    assert c.post("/api/auth/login", json={"email": "owner.user@example.com", "password": "Own3rPassw0rd"}
                  ).status == 200
    assert _refresh(c, _cookie_value(login, "refresh-token")).status == 200
    assert c.get("/api/auth/me", headers={"Authorization": f"Bearer {login.json()['token']}"}).status == 200
    assert first.status == 302


def test_the_link_is_one_conditional_write(internships_app, google, intern_users, monkeypatch):
    """Between the callback's read and its write another Google account linked the address: the write's
    condition fails, the callback refuses (account_conflict) and the other link stands untouched."""
    from internships.accounts import google as google_flow
    from internships.accounts import repository

    c = internships_app.internships
    u = intern_users.student(email="raced.user@example.com")
    stale = repository.get_user(u.id, consistent=True)  # what the callback read: not linked, a password
    repository.update_user(u.id, {"google_sub": "someone-else", "email_verified": True})
    monkeypatch.setattr(google_flow.repo, "get_user", lambda uid, consistent=False: dict(stale))
    google.put_user("raced-sub-1", {"email": "raced.user@example.com", "email_verified": True, "name": "R"})
    before = _users_count()
    _refused(c, _google_sign_in(c, "raced-sub-1"), "account_conflict", None, before)
    monkeypatch.undo()
    after = repository.get_user(u.id, consistent=True)
    assert after["google_sub"] == "someone-else" and after["password_hash"] == stale["password_hash"]
    assert "sessions_revoked_at" not in after


@pytest.mark.parametrize("picture", [
    "https://",                                             # no host
    "https://user:secret@lh3.googleusercontent.com/a.png",  # credentials
    "https://lh3.googleusercontent.com/a b.png",            # whitespace
    "https://lh3.googleusercontent.com/a\u0000.png",        # control character
    "https://lh3.googleusercontent.com/" + "a" * 2100,      # over the 2,048 characters of every stored URL
    "https://lh3.googleusercontent.com:99999/a.png",        # bad port
    "javascript:alert(1)",
    "http://lh3.googleusercontent.com/a.png",               # not https
    12345,
])
def test_an_invalid_picture_is_dropped_and_sign_in_still_succeeds(internships_app, google, picture):
    """Issue #17 item 6: the ``picture`` claim passes the shared ``lambdakit.validated`` URL rule (and is
    https), like every other stored URL; anything else is dropped, never failing the sign-in."""
    c = internships_app.internships
    sub = f"pic-{abs(hash(str(picture))) % 10**8}"
    email = f"{sub}@example.com"
    google.put_user(sub, {"email": email, "email_verified": True, "name": "P", "picture": picture})
    r = _google_sign_in(c, sub)
    assert r.headers["location"].endswith("/dashboard"), r.headers
    from internships.accounts import repository

    assert "avatar_url" not in repository.get_user(_user_id(email), consistent=True)


def test_a_valid_picture_is_stored_as_the_avatar(internships_app, google, intern_users):
    c = internships_app.internships
    pic = "https://lh3.googleusercontent.com/a/ACg8ocJ=s96-c"
    google.put_user("pic-good", {"email": "pic.good@example.com", "email_verified": True, "name": "P", "picture": pic})
    _google_sign_in(c, "pic-good")
    from internships.accounts import repository

    assert repository.get_user(_user_id("pic.good@example.com"), consistent=True)["avatar_url"] == pic
    # linking an existing account without an avatar takes the picture too; a bad one is not written
    u = intern_users.student(email="pic.link@example.com")
    google.put_user("pic-link", {"email": u.email, "email_verified": True, "name": "P", "picture": "https://"})
    _google_sign_in(c, "pic-link")
    assert "avatar_url" not in repository.get_user(u.id, consistent=True)


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
