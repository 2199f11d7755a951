"""Issue #17 item 1: a key creates only keys no wider than itself, on every axis."""
from __future__ import annotations

import datetime as dt

import pytest

from lambdakit import clock


def bearer(k: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {k}"}


def _in(days: int) -> str:
    return clock.iso(clock.now() + dt.timedelta(days=days))


PARENT_EXPIRY = _in(10)


@pytest.fixture
def limited(make_key):
    """The issue's parent: a standard-plan Admin key limited to 10.0.0.0/8 and expiring in 10 days."""
    return make_key(role="admin", plan="standard", restrictions={"ip_whitelist": ["10.0.0.0/8"],
                                                                 "expires_at": _in(10)})


def _post(campaigns_app, key, body, ip="10.1.2.3"):
    return campaigns_app.campaigns.post("/api-keys", json=body, headers=bearer(key), source_ip=ip)


def test_the_reported_escalation_is_refused(campaigns_app, limited):
    r = _post(campaigns_app, limited, {"name": "root", "role": "admin", "plan": "enterprise",
                                       "restrictions": {"rate_limit": "999999999/minute"}})
    assert r.status == 403, r.text
    err = r.json()["error"]
    assert err["code"] == "PERMISSION_DENIED"
    assert set(err["details"]["axes"]) == {"plan", "rate_limit", "ip_whitelist", "expires_at"}
    assert err["details"]["axis"] in err["details"]["axes"]


@pytest.mark.parametrize("body, axis", [
    ({"plan": "pro"}, "plan"),
    ({"restrictions": {"expires_at": _in(5)}}, "ip_whitelist"),
    ({"restrictions": {"ip_whitelist": ["0.0.0.0/0"], "expires_at": _in(5)}}, "ip_whitelist"),
    ({"restrictions": {"ip_whitelist": ["10.0.0.0/7"], "expires_at": _in(5)}}, "ip_whitelist"),
    ({"restrictions": {"ip_whitelist": ["10.0.0.0/16", "11.0.0.1/32"], "expires_at": _in(5)}}, "ip_whitelist"),
    ({"restrictions": {"ip_whitelist": ["10.0.0.0/16"]}}, "expires_at"),
    ({"restrictions": {"ip_whitelist": ["10.0.0.0/16"], "expires_at": _in(30)}}, "expires_at"),
])
def test_each_wider_axis_is_named(campaigns_app, limited, body, axis):
    r = _post(campaigns_app, limited, {"name": "child", "role": "analyst", **body})
    assert r.status == 403, r.text
    err = r.json()["error"]
    assert err["code"] == "PERMISSION_DENIED" and axis in err["details"]["axes"], err


def test_a_narrower_child_is_created_and_inherits_the_plan(campaigns_app, limited):
    r = _post(campaigns_app, limited, {"name": "child", "role": "analyst", "restrictions": {
        "ip_whitelist": ["10.20.0.0/16"], "expires_at": _in(5), "rate_limit": "50/minute"}})
    assert r.status == 201, r.text
    rec = r.json()["data"]["record"]
    assert rec["plan"] == "standard" and rec["restrictions"]["ip_whitelist"] == ["10.20.0.0/16"]
    # same bounds as the parent are not wider
    r = _post(campaigns_app, limited, {"name": "twin", "role": "admin", "plan": "standard", "restrictions": {
        "ip_whitelist": ["10.0.0.0/8"], "expires_at": PARENT_EXPIRY}})
    assert r.status == 201, r.text


def test_custom_rate_limit_of_the_parent_bounds_the_child(campaigns_app, make_key):
    parent = make_key(role="admin", plan="standard", restrictions={"rate_limit": "50/minute"})
    for rl in (None, "51/minute", "3001/hour", "60/minute"):
        body = {"name": "c", "role": "analyst", **({"restrictions": {"rate_limit": rl}} if rl else {})}
        r = _post(campaigns_app, parent, body)
        assert r.status == 403 and set(r.json()["error"]["details"]["axes"]) == {"rate_limit"}, (rl, r.text)
    r = _post(campaigns_app, parent, {"name": "c", "role": "analyst", "restrictions": {"rate_limit": "40/hour"}})
    assert r.status == 201, r.text


def test_a_looser_custom_limit_under_the_same_plan_cap_is_not_wider(campaigns_app, limited):
    # the child's plan limit (100/minute, standard) still caps it: its effective limit is not wider
    r = _post(campaigns_app, limited, {"name": "c", "role": "analyst", "restrictions": {
        "ip_whitelist": ["10.0.0.0/16"], "expires_at": _in(5), "rate_limit": "6001/hour"}})
    assert r.status == 201, r.text


def test_enterprise_parent_bounds_the_rate_of_lower_plans(campaigns_app, make_key):
    ent = make_key(role="admin", plan="enterprise", restrictions={"rate_limit": "10/minute"})
    r = _post(campaigns_app, ent, {"name": "p", "role": "analyst", "plan": "pro"})
    assert r.status == 403 and r.json()["error"]["details"]["axes"].keys() == {"rate_limit"}, r.text
    r = _post(campaigns_app, ent, {"name": "e", "role": "analyst", "plan": "enterprise",
                                   "restrictions": {"rate_limit": "999999999/minute"}})
    assert r.status == 403 and "rate_limit" in r.json()["error"]["details"]["axes"]
    # a bigger per-day count at a lower rate is still a bigger burst: refused
    r = _post(campaigns_app, ent, {"name": "d", "role": "analyst", "plan": "enterprise",
                                   "restrictions": {"rate_limit": "11/day"}})
    assert r.status == 403
    r = _post(campaigns_app, ent, {"name": "ok", "role": "analyst", "plan": "enterprise",
                                   "restrictions": {"rate_limit": "5/minute"}})
    assert r.status == 201, r.text


def test_role_key_cannot_mint_delete_rights_through_scopes(campaigns_app, make_key):
    # Manager: campaigns C/R/U (no D); explicit-scope keys delete with write.
    mgr = make_key(scopes=None, role="manager")
    parent = make_key(scopes=["settings:write", "settings:read", "campaigns:write", "campaigns:read"])
    r = _post(campaigns_app, parent, {"name": "x", "scopes": ["campaigns:write"]})
    assert r.status == 201, r.text  # same rights
    from campaigns.apikeys import bounds

    assert "campaigns:delete" not in bounds.capabilities({"campaigns:write"}, "manager")
    v = bounds.violations({"scopes": {"campaigns:write", "settings:write"}, "role": "manager", "plan": "pro",
                           "restrictions": {}},
                          {"scopes": ["campaigns:write"], "role": None, "plan": "pro", "restrictions": {}},
                          lambda rec: (1000, 60))
    assert set(v) == {"scopes"} and "campaigns:delete" in v["scopes"]
    assert mgr


def test_unrestricted_parent_sets_axes_freely(campaigns_app, admin_key):
    r = _post(campaigns_app, admin_key, {"name": "e", "role": "analyst", "plan": "pro", "restrictions": {
        "ip_whitelist": ["192.168.0.0/16"], "expires_at": _in(400)}})
    assert r.status == 201, r.text
    r = _post(campaigns_app, admin_key, {"name": "e", "role": "analyst", "plan": "enterprise"})
    assert r.status == 403 and "plan" in r.json()["error"]["details"]["axes"]
