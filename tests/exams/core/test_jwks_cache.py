"""Issue 21: the key set stored in the service's table. A cold process reads it in the one
BatchGetItem that reads the caller's profile, login marker and platform settings, verifies the
token with it (no HTTP fetch), and fetches + stores only on a miss, an expired set or a rotated
key (at most once per ``jwks_refetch_min_seconds``). Rejections stay exactly today's."""
from __future__ import annotations

import json
import time

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from lambdakit import clock


@pytest.fixture(autouse=True)
def _reset_clock():
    yield
    clock.set_offset(0)


@pytest.fixture
def fetches(monkeypatch):
    """Every HTTP fetch of the key set (the real fetch still runs)."""
    from exams.identity import jwks

    seen: list[str] = []
    real = jwks._fetch

    def counting(url):
        seen.append(url)
        return real(url)

    monkeypatch.setattr(jwks, "_fetch", counting)
    return seen


@pytest.fixture
def ddb_calls():
    from lambdakit import aws

    calls: list[str] = []
    ddb = aws.client("dynamodb")
    ddb.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name),
                             unique_id="jwks-cache-count")
    yield calls
    ddb.meta.events.unregister("before-call.dynamodb", unique_id="jwks-cache-count")


def _cold(monkeypatch):
    """A new process: no key set, no memory of written login entries."""
    from exams.audit import writer
    from exams.identity import jwks

    jwks.reset()
    monkeypatch.setattr(writer, "_seen_logins", {})


def _item():
    from exams.identity import jwks
    from exams.settings import settings
    from lambdakit.ddb import Table

    return Table(settings().table_name).get(*jwks.item_key(), consistent=True)


def _token(key, kid, sub, **over):
    import os

    now = int(clock.now_ts())
    claims = {"iss": os.environ["EXAMS_JWT_ISSUER"], "aud": os.environ["EXAMS_JWT_AUDIENCE"], "token_use": "id",
              "iat": now, "auth_time": now, "exp": now + 3600, "sub": sub, **over}
    return {"Authorization": f"Bearer {jwt.encode(claims, key, algorithm='RS256', headers={'kid': kid})}"}


def _logins(app, sa, user_id):
    r = app.exams.get("/api/superadmin/audit-logs", headers=sa.headers, query={"action": "login", "user_id": user_id})
    return r.json()["data"]


def test_a_miss_fetches_once_and_stores_the_key_set(exams_app, exam_users, exams_jwks, fetches, monkeypatch):
    from exams.identity import jwks
    from exams.settings import settings
    from lambdakit.ddb import Table

    sa = exam_users.super_admin()
    _cold(monkeypatch)
    Table(settings().table_name).delete(*jwks.item_key())
    before = time.time()
    assert exams_app.exams.get("/api/settings", headers=sa.headers).status == 200
    assert fetches == [exams_jwks.as_uri()]
    item = _item()
    assert item is not None and item["url"] == exams_jwks.as_uri()
    assert {k["kid"] for k in json.loads(item["keys"])} == {k["kid"] for k in json.loads(exams_jwks.read_text())["keys"]}
    assert before * 1000 - 1000 <= int(item["fetched_ms"]) <= time.time() * 1000 + 1000
    assert int(item["ttl"]) > time.time() + 3600


def test_a_cold_request_with_the_item_reads_everything_in_one_batch_and_fetches_nothing(
        exams_app, exam_users, exams_jwks, fetches, ddb_calls, monkeypatch):
    ca = exam_users.client_admin(exam_users.client(name="Cold")["id"])
    assert exams_app.exams.get("/api/tests", headers=ca.headers).status == 200  # key set stored, login written
    _cold(monkeypatch)
    fetches.clear()
    ddb_calls.clear()
    assert exams_app.exams.get("/api/tests", headers=ca.headers).status == 200
    assert fetches == []
    # key set + profile + login marker + settings in one call; then the rate limit and the route's reads
    assert ddb_calls[0] == "BatchGetItem" and ddb_calls.count("BatchGetItem") == 1, ddb_calls
    assert "PutItem" not in ddb_calls and "TransactWriteItems" not in ddb_calls, ddb_calls
    assert len(_logins(exams_app, exam_users.super_admin(), ca.id)) == 1


def test_provider_down_with_a_stored_set_still_verifies(exams_app, exam_users, exams_jwks, fetches, monkeypatch, rotate_jwks):
    from exams.settings import settings

    sa = exam_users.super_admin()
    key = rotate_jwks("ours")
    assert exams_app.exams.get("/api/settings", headers=sa.headers).status == 200  # stored with "ours"
    exams_jwks.unlink()  # the provider is down from now on
    _cold(monkeypatch)
    fetches.clear()
    assert exams_app.exams.get("/api/settings", headers=_token(key, "ours", sa.id)).status == 200
    assert fetches == []
    # the stored set expired: the refetch is tried, fails, and the stored (last good) set is served
    clock.set_offset(settings().jwks_cache_seconds + 60)
    _cold(monkeypatch)
    assert exams_app.exams.get("/api/settings", headers=_token(key, "ours", sa.id)).status == 200
    assert fetches == [exams_jwks.as_uri()]


def test_provider_down_and_nothing_stored_is_503(exams_app, exam_users, exams_jwks, monkeypatch):
    from exams.identity import jwks
    from exams.settings import settings
    from lambdakit.ddb import Table

    sa = exam_users.super_admin()
    Table(settings().table_name).delete(*jwks.item_key())
    exams_jwks.unlink()
    _cold(monkeypatch)
    r = exams_app.exams.get("/api/settings", headers=sa.headers)
    assert r.status == 503 and r.json()["details"] == {"reason": "identity_provider_unavailable"}


def test_rotation_refetches_respecting_the_min_interval(exams_app, exam_users, exams_jwks, fetches, monkeypatch, rotate_jwks):
    sa = exam_users.super_admin()
    assert exams_app.exams.get("/api/settings", headers=sa.headers).status == 200  # stored now
    key = rotate_jwks("next-key")
    h = _token(key, "next-key", sa.id)
    _cold(monkeypatch)
    fetches.clear()
    # the stored set was fetched moments ago: the unknown kid does not trigger a fetch
    r = exams_app.exams.get("/api/settings", headers=h)
    assert (r.status, r.json()["error"]) == (401, "TOKEN_VERIFICATION_FAILED") and fetches == []
    stored = int(_item()["fetched_ms"])
    clock.set_offset(60)
    _cold(monkeypatch)
    h = _token(key, "next-key", sa.id)
    assert exams_app.exams.get("/api/settings", headers=h).status == 200
    assert fetches == [exams_jwks.as_uri()]
    item = _item()
    assert int(item["fetched_ms"]) > stored and "next-key" in {k["kid"] for k in json.loads(item["keys"])}
    # the next cold process verifies the rotated key from the stored set
    _cold(monkeypatch)
    fetches.clear()
    assert exams_app.exams.get("/api/settings", headers=h).status == 200 and fetches == []


def test_forged_token_with_a_stored_set_is_todays_401_and_reads_nothing_into_the_request(
        exams_app, exam_users, exams_jwks, fetches, monkeypatch):
    from exams.settings import settings

    sa = exam_users.super_admin()
    ca = exam_users.client_admin(exam_users.client(name="Forge")["id"])
    assert exams_app.exams.get("/api/settings", headers=sa.headers).status == 200
    # the client admin's real token, its payload changed to claim the super admin's id (signature kept)
    head, payload, sig = ca.token.split(".")
    forged = json.loads(jwt.utils.base64url_decode(payload))
    forged["sub"] = forged[settings().user_id_claim] = sa.id
    forged["auth_time"] = forged["auth_time"] + 1  # a sign-in of the super admin never seen
    tampered = ".".join([head, jwt.utils.base64url_encode(json.dumps(forged).encode()).decode(), sig])
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    kid = jwt.get_unverified_header(sa.token)["kid"]
    for h in ({"Authorization": f"Bearer {tampered}"}, _token(stranger, kid, sa.id),
              _token(stranger, "no-such-kid", sa.id)):
        _cold(monkeypatch)
        fetches.clear()
        r = exams_app.exams.get("/api/settings", headers=h, source_ip="192.0.2.44")
        assert (r.status, r.json()["error"]) == (401, "TOKEN_VERIFICATION_FAILED"), r.text
        assert fetches == []  # verified (and refused) against the stored set
    logins = _logins(exams_app, sa, sa.id)
    assert all(e["ip_address"] != "192.0.2.44" for e in logins)  # no login entry for a forged token
    r = exams_app.exams.get("/api/superadmin/audit-logs", headers=sa.headers, query={"action": "token_rejected"})
    rejected = [e for e in r.json()["data"] if e["ip_address"] == "192.0.2.44"]
    assert sorted(json.loads(e["metadata"])["reason"] for e in rejected) == [
        "TOKEN_VERIFICATION_FAILED:signature", "TOKEN_VERIFICATION_FAILED:signature",
        "TOKEN_VERIFICATION_FAILED:unknown_kid"]


def test_an_older_fetch_never_replaces_a_newer_stored_set(exams_app, exams_jwks):
    from exams.identity import jwks

    url = exams_jwks.as_uri()
    keys = [{"kty": "RSA", "kid": "a", "n": "x", "e": "AQAB"}]
    jwks._store(url, keys, 2000.0)
    jwks._store(url, [{**keys[0], "kid": "old"}], 1000.0)
    assert int(_item()["fetched_ms"]) == 2_000_000 and json.loads(_item()["keys"])[0]["kid"] == "a"
    jwks._store(url, [{**keys[0], "kid": "new"}], 3000.0)
    assert json.loads(_item()["keys"])[0]["kid"] == "new"


def test_a_stored_set_naming_another_url_is_ignored(exams_app, exam_users, exams_jwks, fetches, monkeypatch):
    from exams.identity import jwks
    from exams.settings import settings
    from lambdakit.ddb import Table

    sa = exam_users.super_admin()
    assert exams_app.exams.get("/api/settings", headers=sa.headers).status == 200
    item = _item()
    Table(settings().table_name).put({**item, "url": "https://evil.example.com/jwks.json"})
    _cold(monkeypatch)
    fetches.clear()
    assert exams_app.exams.get("/api/settings", headers=sa.headers).status == 200
    assert fetches == [exams_jwks.as_uri()]  # the item was not adopted
    assert _item()["url"] == exams_jwks.as_uri()
    assert jwks.item_key("https://other.example.com/jwks.json") != jwks.item_key()
