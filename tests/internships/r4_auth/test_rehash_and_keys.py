"""Issue #17 item 15: passwords hashed below the current scrypt cost are rehashed on a successful
login (conditional write); the OAuth state cookie has its own signing secret. Issue #18: the
Registrations and SignIns{method=password} metrics."""
from __future__ import annotations

import json

from lambdakit.settings import reset_settings


def _stored_hash(user_id: str) -> str:
    from internships.accounts import repository

    return repository.get_user(user_id, consistent=True)["password_hash"]


def test_login_rehashes_a_weaker_stored_hash_once(internships_app, intern_users, monkeypatch):
    u = intern_users.student()  # hashed at the tests' N=1024
    old = _stored_hash(u.id)
    assert old.startswith("scrypt$1024$8$1$")
    monkeypatch.setenv("INTERNSHIPS_SCRYPT_N", "2048")  # the current cost went up
    reset_settings()
    c = internships_app.internships
    assert c.post("/api/auth/login", json={"email": u.email, "password": "Wrong-pass1"}).status == 401
    assert _stored_hash(u.id) == old  # a wrong password never rewrites anything
    assert c.post("/api/auth/login", json={"email": u.email, "password": u.password}).status == 200
    new = _stored_hash(u.id)
    assert new.startswith("scrypt$2048$8$1$") and new != old
    assert c.post("/api/auth/login", json={"email": u.email, "password": u.password}).status == 200
    assert _stored_hash(u.id) == new  # at the current cost: left alone


def test_rehash_never_overwrites_a_concurrent_password_change(internships_app, intern_users):
    from internships.accounts import repository

    u = intern_users.student()
    old = _stored_hash(u.id)
    repository.update_user(u.id, {"password_hash": "scrypt$2048$8$1$changed$meanwhile"})
    assert repository.set_password_hash_if_unchanged(u.id, old, "scrypt$4096$8$1$x$y") is False
    assert _stored_hash(u.id) == "scrypt$2048$8$1$changed$meanwhile"


def test_state_key_is_its_own_secret_with_an_env_fallback(internships_app, monkeypatch):
    from internships.auth import tokens
    from internships.settings import settings

    s = settings()
    assert s.oauth_state_secret_arn and s.oauth_state_secret_arn != s.jwt_secret_arn  # template: own secret
    from_secret = tokens.oauth_state_key()
    assert from_secret and from_secret != tokens.signing_key()
    monkeypatch.setenv("INTERNSHIPS_OAUTH_STATE_SECRET", "local-override-key")
    reset_settings()
    assert tokens.oauth_state_key() == "local-override-key"
    monkeypatch.setenv("INTERNSHIPS_OAUTH_STATE_SECRET", "")
    monkeypatch.setenv("INTERNSHIPS_OAUTH_STATE_SECRET_ARN", "")
    monkeypatch.setenv("INTERNSHIPS_GOOGLE_CLIENT_ID", "client-without-state-key")
    reset_settings()
    assert tokens.oauth_state_key() is None
    r = internships_app.internships.get("/api/auth/google")  # no key: refused, no unsigned cookie
    assert r.status == 302 and r.headers["location"].endswith("/login?error=google_not_configured")


def test_registration_and_password_sign_in_metrics(internships_app, capsys):
    c = internships_app.internships
    reg = {"name": "Metric User", "email": "metric.user@example.com", "password": "Secur3pass",
           "phone": "+91 98450 12345"}
    capsys.readouterr()
    assert c.post("/api/auth/register", json=reg, source_ip="10.40.0.1").status == 200
    assert c.post("/api/auth/login", json={"email": reg["email"], "password": "Wrong-pass1"},
                  source_ip="10.40.0.1").status == 401
    assert c.post("/api/auth/login", json={"email": reg["email"], "password": reg["password"]},
                  source_ip="10.40.0.1").status == 200
    docs = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith('{"_aws"')]
    regs = [d for d in docs if "Registrations" in d]
    sign_ins = [d for d in docs if "SignIns" in d]
    assert len(regs) == 1 and regs[0]["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "Internships"
    assert len(sign_ins) == 1 and sign_ins[0]["method"] == "password" and sign_ins[0]["SignIns"] == [1.0]
