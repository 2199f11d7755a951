"""Token verification through the real handlers: error codes, expiry, rotation, claims, audit."""
from __future__ import annotations

import json
import os
import time

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from lambdakit import clock


@pytest.fixture(autouse=True)
def _reset_clock():
    yield
    clock.set_offset(0)


def _claims(**over):
    now = int(time.time())
    base = {"iss": os.environ["EXAMS_JWT_ISSUER"], "aud": os.environ["EXAMS_JWT_AUDIENCE"], "token_use": "id",
            "iat": now, "auth_time": now, "exp": now + 3600}
    base.update(over)
    return base


def _code(r):
    return r.status, r.json()["error"]


def test_missing_and_malformed_tokens(exams_app, exam_users):
    sa = exam_users.super_admin()
    assert _code(exams_app.exams.get("/api/settings")) == (401, "MISSING_AUTH_TOKEN")
    assert _code(exams_app.exams.get("/api/settings", headers={"Authorization": "Basic abc"})) == \
        (401, "MISSING_AUTH_TOKEN")
    assert _code(exams_app.exams.get("/api/settings", headers={"Authorization": "Bearer not.a.jwt"})) == \
        (401, "INVALID_TOKEN")
    assert exams_app.exams.get("/api/settings", headers=sa.headers).status == 200


def test_bad_signature_wrong_issuer_audience(exams_app, exam_users, exams_jwks, rotate_jwks):
    sa = exam_users.super_admin()
    head, payload, sig = sa.token.split(".")
    forged = json.loads(jwt.utils.base64url_decode(payload))
    forged["email"] = "evil@example.com"
    tampered = ".".join([head, jwt.utils.base64url_encode(json.dumps(forged).encode()).decode(), sig])
    r = exams_app.exams.get("/api/settings", headers={"Authorization": f"Bearer {tampered}"})
    assert _code(r) == (401, "TOKEN_VERIFICATION_FAILED")
    key = rotate_jwks()
    for over in ({"iss": "https://issuer.example.com/other"}, {"aud": "another-client"}):
        tok = jwt.encode(_claims(sub=sa.id, **over), key, algorithm="RS256", headers={"kid": "rotated-1"})
        assert _code(exams_app.exams.get("/api/settings", headers={"Authorization": f"Bearer {tok}"})) == \
            (401, "INVALID_TOKEN")
    # signed by a key that is not in the JWKS at all
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    tok = jwt.encode(_claims(sub=sa.id), stranger, algorithm="RS256", headers={"kid": "rotated-1"})
    assert _code(exams_app.exams.get("/api/settings", headers={"Authorization": f"Bearer {tok}"})) == \
        (401, "TOKEN_VERIFICATION_FAILED")
    # HS256 with the public key as secret (algorithm confusion) is refused
    tok = jwt.encode(_claims(sub=sa.id), "secret", algorithm="HS256")
    assert _code(exams_app.exams.get("/api/settings", headers={"Authorization": f"Bearer {tok}"})) == \
        (401, "INVALID_TOKEN")


def test_expired_token(exams_app, exam_users):
    sa = exam_users.super_admin()
    clock.set_offset(3600 + 120)
    assert _code(exams_app.exams.get("/api/settings", headers=sa.headers)) == (401, "TOKEN_EXPIRED")


def test_rotated_key_is_fetched_again(exams_app, exam_users, exams_jwks, rotate_jwks):
    sa = exam_users.super_admin()
    assert exams_app.exams.get("/api/settings", headers=sa.headers).status == 200  # JWKS now cached
    key = rotate_jwks("next-key")
    tok = jwt.encode(_claims(sub=sa.id), key, algorithm="RS256", headers={"kid": "next-key"})
    h = {"Authorization": f"Bearer {tok}"}
    # fetched moments ago: a burst of unknown kids does not hammer the provider
    assert _code(exams_app.exams.get("/api/settings", headers=h)) == (401, "TOKEN_VERIFICATION_FAILED")
    clock.set_offset(60)
    assert exams_app.exams.get("/api/settings", headers=h).status == 200


def test_user_id_claim_preferred_over_sub(exams_app, exam_users, exams_jwks, rotate_jwks):
    """Firebase-style tokens carry user_id; it wins over sub."""
    sa = exam_users.super_admin()
    key = rotate_jwks("fb")
    clock.set_offset(60)
    tok = jwt.encode(_claims(sub="someone-else", user_id=sa.id), key, algorithm="RS256", headers={"kid": "fb"})
    assert exams_app.exams.get("/api/settings", headers={"Authorization": f"Bearer {tok}"}).status == 200
    tok = jwt.encode(_claims(sub="someone-else"), key, algorithm="RS256", headers={"kid": "fb"})
    r = exams_app.exams.get("/api/settings", headers={"Authorization": f"Bearer {tok}"})
    assert _code(r) == (403, "FORBIDDEN")  # valid identity without a profile here


def test_login_audited_once_per_sign_in_and_rejections_audited(exams_app, exam_users):
    sa = exam_users.super_admin()
    for _ in range(3):
        assert exams_app.exams.get("/api/settings", headers=sa.headers, source_ip="203.0.113.7").status == 200
    exams_app.exams.get("/api/settings", headers={"Authorization": "Bearer garbage"}, source_ip="198.51.100.9")
    r = exams_app.exams.get("/api/superadmin/audit-logs", headers=sa.headers, query={"action": "login",
                                                                                      "user_id": sa.id})
    logins = r.json()["data"]
    assert len(logins) == 1
    assert logins[0]["ip_address"] == "203.0.113.7" and logins[0]["success"] is True
    assert logins[0]["event_type"] == "login" and logins[0]["timestamp"]
    r = exams_app.exams.get("/api/superadmin/audit-logs", headers=sa.headers, query={"action": "token_rejected"})
    rejected = r.json()["data"]
    assert len(rejected) == 1 and rejected[0]["ip_address"] == "198.51.100.9" and rejected[0]["success"] is False
    assert "INVALID_TOKEN" in rejected[0]["metadata"]


def test_a_cold_process_reads_the_login_marker_with_the_profile_and_writes_nothing(exams_app, exam_users,
                                                                                   monkeypatch):
    """Issue 21: a new process (empty login memory) reads the caller's profile, the sign-in's login
    marker and the platform settings in one BatchGetItem; the marker found, no refused login write is
    sent, and the sign-in still has exactly one login entry."""
    from exams.audit import writer
    from lambdakit import aws

    ca = exam_users.client_admin(exam_users.client(name="Cold")["id"])
    assert exams_app.exams.get("/api/tests", headers=ca.headers).status == 200  # the sign-in's entry
    monkeypatch.setattr(writer, "_seen_logins", {})  # a cold process
    calls: list[str] = []
    ddb = aws.client("dynamodb")
    ddb.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name),
                             unique_id="cold-login-count")
    try:
        assert exams_app.exams.get("/api/tests", headers=ca.headers).status == 200
    finally:
        ddb.meta.events.unregister("before-call.dynamodb", unique_id="cold-login-count")
    assert "TransactWriteItems" not in calls and "GetItem" not in calls[:calls.index("BatchGetItem")], calls
    assert calls.count("BatchGetItem") == 1 and calls.count("GetItem") == 1, calls  # + the list's total
    sa = exam_users.super_admin()
    r = exams_app.exams.get("/api/superadmin/audit-logs", headers=sa.headers, query={"action": "login",
                                                                                      "user_id": ca.id})
    assert len(r.json()["data"]) == 1
