"""Forged credentials on every service: each gets a clean 401/403 in the service's error format.

exams: Cognito ID tokens (RS256 against the pool's JWKS); internships: HS256 access tokens
signed with the JwtSecret; campaigns: API keys (unknown, revoked, expired, wrong source IP).
"""
from __future__ import annotations

import json
import os
import time

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from lambdakit import clock
from tests.quality.conftest import assert_error


@pytest.fixture(autouse=True)
def _reset_clock():
    yield
    clock.set_offset(0)


def _none_token(claims: dict) -> str:
    """An unsigned JWT (``alg: none``), built by hand: nothing signs it."""
    enc = jwt.utils.base64url_encode
    head = enc(json.dumps({"alg": "none", "typ": "JWT"}).encode()).decode()
    body = enc(json.dumps(claims).encode()).decode()
    return f"{head}.{body}."


# ---------------------------------------------------------------- exams (Cognito ID tokens)
def _exam_claims(sub: str, **over) -> dict:
    now = int(time.time())
    base = {"iss": os.environ["EXAMS_JWT_ISSUER"], "aud": os.environ["EXAMS_JWT_AUDIENCE"], "token_use": "id",
            "iat": now, "auth_time": now, "exp": now + 3600, "sub": sub}
    base.update(over)
    return base


def test_exams_rejects_forged_id_tokens(exams_app, exam_users, exams_jwks, rotate_jwks):
    api = exams_app.exams
    sa = exam_users.super_admin()
    assert api.get("/api/settings", headers=sa.headers).status == 200
    real_kid = jwt.get_unverified_header(sa.token)["kid"]
    trusted = rotate_jwks("trusted-extra")  # a key the service trusts (for aud/exp cases)
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cases = {
        "alg none": _none_token(_exam_claims(sa.id)),
        "alg none, real kid": _none_token(_exam_claims(sa.id)).replace(
            jwt.utils.base64url_encode(b'{"alg": "none", "typ": "JWT"}').decode(),
            jwt.utils.base64url_encode(json.dumps({"alg": "none", "kid": real_kid}).encode()).decode()),
        "HS256 confusion": jwt.encode(_exam_claims(sa.id), "not-the-key", algorithm="HS256"),
        "wrong key (real kid)": jwt.encode(_exam_claims(sa.id), stranger, algorithm="RS256",
                                           headers={"kid": real_kid}),
        "wrong key (unknown kid)": jwt.encode(_exam_claims(sa.id), stranger, algorithm="RS256",
                                              headers={"kid": "nobody"}),
        "wrong audience": jwt.encode(_exam_claims(sa.id, aud="another-app-client"), trusted, algorithm="RS256",
                                     headers={"kid": "trusted-extra"}),
        "wrong issuer": jwt.encode(_exam_claims(sa.id, iss="https://evil.example"), trusted, algorithm="RS256",
                                   headers={"kid": "trusted-extra"}),
        "access token, not id": jwt.encode(_exam_claims(sa.id, token_use="access"), trusted, algorithm="RS256",
                                           headers={"kid": "trusted-extra"}),
        "expired": jwt.encode(_exam_claims(sa.id, exp=int(time.time()) - 3600), trusted, algorithm="RS256",
                              headers={"kid": "trusted-extra"}),
        "garbage": "a.b.c",
    }
    for name, tok in cases.items():
        r = api.get("/api/settings", headers={"Authorization": f"Bearer {tok}"})
        body = assert_error("exams", r, 401)
        assert body["error"] in ("INVALID_TOKEN", "TOKEN_VERIFICATION_FAILED", "TOKEN_EXPIRED"), (name, body)
    # the real token expires with the clock too
    clock.set_offset(3600 + 600)
    assert assert_error("exams", api.get("/api/settings", headers=sa.headers), 401)["error"] == "TOKEN_EXPIRED"


# ---------------------------------------------------------------- internships (HS256 access tokens)
def _intern_claims(user, **over) -> dict:
    now = int(time.time())
    base = {"sub": user.id, "role": "super_admin", "email": user.email, "name": "x", "iat": now, "nbf": now,
            "exp": now + 900, "iss": "internships", "aud": "internships-api", "typ": "access", "jti": "j1"}
    base.update(over)
    return base


def test_internships_rejects_forged_access_tokens(internships_app, intern_users, intern_seed):
    from internships.auth.tokens import signing_key

    api = internships_app.internships
    st = intern_users.student()
    assert api.get("/api/profile", headers=st.headers).status == 200
    secret = signing_key()
    cases = {
        "alg none": _none_token(_intern_claims(st)),
        "wrong key": jwt.encode(_intern_claims(st), "x" * 48, algorithm="HS256"),
        "wrong audience": jwt.encode(_intern_claims(st, aud="other-api"), secret, algorithm="HS256"),
        "wrong issuer": jwt.encode(_intern_claims(st, iss="evil"), secret, algorithm="HS256"),
        "expired": jwt.encode(_intern_claims(st, exp=int(time.time()) - 60, iat=int(time.time()) - 1000,
                                             nbf=int(time.time()) - 1000), secret, algorithm="HS256"),
        "RS256 with unknown key": jwt.encode(_intern_claims(st), rsa.generate_private_key(
            public_exponent=65537, key_size=2048), algorithm="RS256"),
        "garbage": "a.b.c",
        "oversized": "a" * 5000,
    }
    for name, tok in cases.items():
        for path in ("/api/profile", "/api/admin/users"):
            r = api.get(path, headers={"Authorization": f"Bearer {tok}"})
            assert_error("internships", r, 401)
            assert r.status == 401, (name, path)
    clock.set_offset(3600)
    assert_error("internships", api.get("/api/profile", headers=st.headers), 401)


# ---------------------------------------------------------------- campaigns (API keys)
def test_campaigns_rejects_bad_api_keys(campaigns_app, make_key, admin_key):
    c = campaigns_app.campaigns

    def get(key: str, **kw):
        return c.get("/contacts", headers={"Authorization": f"Bearer {key}"}, **kw)

    assert get(admin_key).status == 200
    # unknown (well-formed prefix, random secret) and garbage
    assert assert_error("campaigns", get(admin_key[:-6] + "abcdef"), 401)["error"]["code"] == "INVALID_TOKEN"
    assert_error("campaigns", get("nonsense"), 401)
    assert_error("campaigns", c.get("/contacts"), 401)
    # revoked
    from campaigns.auth import create_key

    victim, rec = create_key("acct-test", "victim", role="admin")
    assert get(victim).status == 200
    assert c.delete(f"/api-keys/{rec['key_id']}", headers={"Authorization": f"Bearer {admin_key}"}).status == 200
    assert_error("campaigns", get(victim), 401)
    # expired
    from datetime import timedelta

    exp = clock.iso(clock.now() + timedelta(days=1))
    soon = make_key(role="admin", restrictions={"expires_at": exp}, name="soon")
    assert get(soon).status == 200
    clock.set_offset(2 * 86400)
    assert_error("campaigns", get(soon), 401)
    clock.set_offset(0)
    # wrong source IP
    fenced = make_key(role="admin", restrictions={"ip_whitelist": ["10.0.0.0/8"]}, name="fenced")
    assert get(fenced, source_ip="10.1.2.3").status == 200
    assert_error("campaigns", get(fenced, source_ip="192.0.2.7"), 403)
