"""API keys: authentication, restrictions, rate limits, management, role matrix."""
from __future__ import annotations

import pytest

from lambdakit import clock


def bearer(k: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {k}"}


def test_api_check_and_error_codes(campaigns_app, admin_key):
    c = campaigns_app.campaigns
    r = c.get("/api", headers=bearer(admin_key))
    assert r.status == 200, r.text
    d = r.json()["data"]
    assert d["plan"] == "pro" and "settings:write" in d["scopes"] and d["key_id"]
    assert r.headers["x-ratelimit-limit"] == "1000" and r.headers["x-ratelimit-remaining"] == "999"
    assert int(r.headers["x-ratelimit-reset"]) > clock.now_ts()

    r = c.get("/api")
    assert r.status == 401 and r.json()["error"]["code"] == "AUTH_REQUIRED"
    r = c.get("/api", headers={"Authorization": "Bearer "})
    assert r.status == 401 and r.json()["error"]["code"] == "AUTH_REQUIRED"
    r = c.get("/api", headers=bearer("ck_" + "x" * 43))
    assert r.status == 401 and r.json()["error"]["code"] == "INVALID_TOKEN"
    r = c.get("/api", headers={"Authorization": "Basic Zm9vOmJhcg=="})
    assert r.status == 401 and r.json()["error"]["code"] == "INVALID_TOKEN"
    body = r.json()
    assert body["success"] is False and body["timestamp"]


def test_secret_is_stored_only_as_hash(campaigns_app, make_key):
    import boto3

    secret = make_key(role="admin")
    assert secret.startswith("ck_") and len(secret) >= 3 + 43
    table = campaigns_app.envs["campaigns"].refs["CampaignsTable"]
    items = boto3.resource("dynamodb").Table(table).scan()["Items"]  # test inspection only
    assert items and all(secret not in repr(i) for i in items)


def test_expired_key_is_invalid(campaigns_app, make_key):
    soon = clock.iso(clock.now().replace(microsecond=0)).replace("Z", "+00:00")
    import datetime as dt

    exp = clock.iso(clock.now() + dt.timedelta(minutes=5))
    key = make_key(role="admin", restrictions={"expires_at": exp})
    assert campaigns_app.campaigns.get("/api", headers=bearer(key)).status == 200
    clock.set_offset(600)
    try:
        r = campaigns_app.campaigns.get("/api", headers=bearer(key))
        assert r.status == 401 and r.json()["error"]["code"] == "INVALID_TOKEN"
    finally:
        clock.set_offset(0)
    assert soon


def test_ip_allow_list_v4_and_v6(campaigns_app, make_key):
    key = make_key(role="admin", restrictions={"ip_whitelist": ["10.0.0.0/8", "2001:db8::/32"]})
    c = campaigns_app.campaigns
    assert c.get("/api", headers=bearer(key), source_ip="10.1.2.3").status == 200
    assert c.get("/api", headers=bearer(key), source_ip="2001:db8::1").status == 200
    r = c.get("/api", headers=bearer(key), source_ip="192.168.1.1")
    assert r.status == 403 and r.json()["error"]["code"] == "PERMISSION_DENIED"
    assert c.get("/api", headers=bearer(key), source_ip="2001:db9::1").status == 403


def test_key_rate_limit_and_plan_limit(campaigns_app, make_key):
    c = campaigns_app.campaigns
    key = make_key(role="admin", restrictions={"rate_limit": "3/hour"})
    for _ in range(3):
        r = c.get("/api", headers=bearer(key))
        assert r.status == 200
    assert r.headers["x-ratelimit-limit"] == "3" and r.headers["x-ratelimit-remaining"] == "0"
    r = c.get("/api", headers=bearer(key))
    assert r.status == 429 and r.json()["error"]["code"] == "RATE_LIMITED"
    assert int(r.headers["retry-after"]) > 0 and r.headers["x-ratelimit-remaining"] == "0"
    assert "x-ratelimit-reset" in r.headers

    std = make_key(role="admin", plan="standard")
    r = c.get("/api", headers=bearer(std))
    assert r.headers["x-ratelimit-limit"] == "100"
    ent = make_key(role="admin", plan="enterprise", restrictions={"rate_limit": "2/minute"})
    assert c.get("/api", headers=bearer(ent)).status == 200
    assert c.get("/api", headers=bearer(ent)).status == 200
    assert c.get("/api", headers=bearer(ent)).status == 429


def test_plan_limit_counts_atomically(campaigns_app, make_key, monkeypatch, fresh_rate_window):
    """A plan admits exactly its limit per window (limit lowered through settings to keep the test fast)."""
    from lambdakit import settings as ls

    monkeypatch.setenv("CAMPAIGNS_PLAN_STANDARD_PER_MINUTE", "5")
    ls.reset_settings()
    try:
        key = make_key(role="admin", plan="standard")
        c = campaigns_app.campaigns
        codes = [c.get("/api", headers=bearer(key)).status for _ in range(7)]
        assert codes == [200] * 5 + [429] * 2
    finally:
        ls.reset_settings()


def test_key_management_routes(campaigns_app, admin_key):
    c = campaigns_app.campaigns
    h = bearer(admin_key)
    r = c.post("/api-keys", json={"name": "reporting", "role": "Analyst", "plan": "standard",
                                  "restrictions": {"rate_limit": "50/hour", "ip_whitelist": ["127.0.0.1/32"]}},
               headers=h)
    assert r.status == 201, r.text
    d = r.json()["data"]
    secret, key_id = d["key"], d["key_id"]
    assert secret.startswith("ck_") and d["record"]["role"] == "analyst"
    assert "contacts:read" in d["record"]["scopes"] and "contacts:write" not in d["record"]["scopes"]
    assert d["record"]["restrictions"]["rate_limit"] == "50/hour"

    r = c.get("/api-keys", headers=h)
    assert r.status == 200
    keys = r.json()["data"]["api_keys"]
    assert {k["key_id"] for k in keys} >= {key_id} and all("key" not in k and "secret_hash" not in k for k in keys)
    r = c.get(f"/api-keys/{key_id}", headers=h)
    assert r.status == 200 and r.json()["data"]["name"] == "reporting"

    assert c.get("/api", headers=bearer(secret)).status == 200
    # an analyst key cannot manage keys
    r = c.get("/api-keys", headers=bearer(secret))
    assert r.status == 403 and r.json()["error"]["code"] == "PERMISSION_DENIED"

    r = c.delete(f"/api-keys/{key_id}", headers=h)
    assert r.status == 200 and r.json()["data"]["status"] == "revoked"
    r = c.get("/api", headers=bearer(secret))
    assert r.status == 401 and r.json()["error"]["code"] == "INVALID_TOKEN"
    assert c.get("/api-keys/nope", headers=h).status == 404


@pytest.mark.parametrize("body, field", [
    ({"name": "x"}, "scopes"),
    ({"name": "x", "role": "admin", "scopes": ["contacts:read"]}, "scopes"),
    ({"name": "x", "scopes": ["contacts:fly"]}, "scopes"),
    ({"name": "x", "role": "boss"}, "role"),
    ({"name": "x", "role": "admin", "plan": "gold"}, "plan"),
    ({"name": "x", "role": "admin", "restrictions": {"ip_whitelist": ["300.1.1.1/8"]}}, "restrictions.ip_whitelist"),
    ({"name": "x", "role": "admin", "restrictions": {"rate_limit": "lots"}}, "restrictions.rate_limit"),
    ({"name": "x", "role": "admin", "restrictions": {"expires_at": "2001-01-01T00:00:00Z"}},
     "restrictions.expires_at"),
    ({"role": "admin"}, "name"),
])
def test_create_key_validation(campaigns_app, auth_headers, body, field):
    r = campaigns_app.campaigns.post("/api-keys", json=body, headers=auth_headers)
    assert r.status == 422, r.text
    err = r.json()["error"]
    assert err["code"] == "VALIDATION_ERROR" and field in err["details"], err


def test_non_object_body_is_422(campaigns_app, auth_headers):
    c = campaigns_app.campaigns
    for raw in ("not json", "[1,2]", ""):
        r = c.post("/api-keys", body=raw, headers={**auth_headers, "content-type": "application/json"})
        assert r.status == 422 and r.json()["error"]["code"] == "VALIDATION_ERROR"


def test_keys_cannot_escalate_or_cross_accounts(campaigns_app, make_key):
    c = campaigns_app.campaigns
    limited = make_key(scopes=["settings:read", "settings:write"])
    r = c.post("/api-keys", json={"name": "root", "role": "admin"}, headers=bearer(limited))
    assert r.status == 403
    r = c.post("/api-keys", json={"name": "same", "scopes": ["settings:read"]}, headers=bearer(limited))
    assert r.status == 201
    other_admin = make_key(role="admin", account_id="acct-other")
    r = c.get(f"/api-keys/{r.json()['data']['key_id']}", headers=bearer(other_admin))
    assert r.status == 404


def test_devseed_bootstrap_key_is_admin_pro_and_stable(campaigns_app):
    from campaigns import devseed

    first = devseed.seed(None)
    r = campaigns_app.campaigns.get("/api", headers=bearer(first["api_key"]))
    assert r.status == 200 and r.json()["data"]["plan"] == "pro" and r.json()["data"]["role"] == "admin"
    assert devseed.seed(first)["api_key"] == first["api_key"]
    assert devseed.seed({"api_key": "ck_stale"})["api_key"] != first["api_key"]
