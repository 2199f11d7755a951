"""The spec's permission matrix, cell by cell, plus the cross-tenant variants.

Routes of this slice are called through the real handlers for every role; routes built on
top (tests, attempts, questions, stats) are checked against the policy table the service
middleware enforces for them.
"""
from __future__ import annotations

import pytest

from exams.identity import Principal, policy

SA, CA, ST, G = "super_admin", "client_admin", "student", "guest"

# (route key, {role: expected}) where expected is "ok" or the error code.
SPEC_MATRIX = {
    "GET /api/clients": {SA: "ok", CA: "INSUFFICIENT_PRIVILEGES", ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
    "POST /api/clients": {SA: "ok", CA: "INSUFFICIENT_PRIVILEGES", ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
    "PUT /api/clients/{clientId}": {SA: "ok", CA: "INSUFFICIENT_PRIVILEGES", ST: "INSUFFICIENT_PRIVILEGES",
                                    G: "MISSING_AUTH_TOKEN"},
    "GET /api/tests": {SA: "ok", CA: "ok", ST: "ok", G: "ok"},
    "POST /api/tests": {SA: "FORBIDDEN", CA: "ok", ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
    "PUT /api/tests/{testId}": {SA: "FORBIDDEN", CA: "ok", ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
    "POST /api/rpc/clone-test": {SA: "FORBIDDEN", CA: "ok", ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
    "POST /api/attempts": {SA: "ok", CA: "ok", ST: "ok", G: "ok"},
    "GET /api/attempts": {SA: "ok", CA: "ok", ST: "ok", G: "ok"},
    "POST /api/attempt-answers": {SA: "ok", CA: "FORBIDDEN", ST: "ok", G: "ok"},
    "GET /api/attempt-answers/{attemptId}": {SA: "ok", CA: "FORBIDDEN", ST: "ok", G: "ok"},
    "POST /api/rpc/submit-attempt": {SA: "ok", CA: "FORBIDDEN", ST: "ok", G: "ok"},
    "GET /api/attempts/{attemptId}/report": {SA: "ok", CA: "ok", ST: "ok", G: "ok"},
    "POST /api/proctoring/events": {SA: "ok", CA: "FORBIDDEN", ST: "ok", G: "ok"},
    "GET /api/superadmin/subscriptions": {SA: "ok", CA: "INSUFFICIENT_PRIVILEGES", ST: "INSUFFICIENT_PRIVILEGES",
                                          G: "MISSING_AUTH_TOKEN"},
    "PUT /api/superadmin/subscriptions/{clientId}": {SA: "ok", CA: "INSUFFICIENT_PRIVILEGES",
                                                     ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
    "GET /api/superadmin/audit-logs": {SA: "ok", CA: "INSUFFICIENT_PRIVILEGES", ST: "INSUFFICIENT_PRIVILEGES",
                                       G: "MISSING_AUTH_TOKEN"},
    "GET /api/settings": {SA: "ok", CA: "INSUFFICIENT_PRIVILEGES", ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
    "PUT /api/settings": {SA: "ok", CA: "INSUFFICIENT_PRIVILEGES", ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
    "POST /api/questions": {SA: "FORBIDDEN", CA: "ok", ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
    "POST /api/questions/import": {SA: "FORBIDDEN", CA: "ok", ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
    "GET /api/stats": {SA: "ok", CA: "ok", ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
    "POST /api/create-user": {SA: "ok", CA: "ok", ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
}


def _principal(role):
    if role == G:
        return None
    return Principal(user_id="u", role=role, client_id=None if role == SA else "c1", email="e", name="n")


@pytest.mark.parametrize("route,role", [(r, role) for r, cells in SPEC_MATRIX.items() for role in cells])
def test_policy_table_cell(route, role):
    expected = SPEC_MATRIX[route][role]
    if expected == "ok":
        policy.check(route, _principal(role))
    else:
        with pytest.raises(Exception) as ei:
            policy.check(route, _principal(role))
        assert ei.value.code == expected


def test_every_policy_route_exists_in_template():
    from local_runtime.testing import services

    keys = {r.route_key for r in services()["exams"].routes}
    assert set(policy.POLICY) <= keys


@pytest.fixture
def world(exams_app, exam_users):
    sa = exam_users.super_admin()
    c1 = exam_users.client("One", "growth")
    c2 = exam_users.client("Two", "growth")
    ca1, ca2 = exam_users.client_admin(c1["id"]), exam_users.client_admin(c2["id"])
    st1, st1b = exam_users.student(c1["id"]), exam_users.student(c1["id"])
    return dict(sa=sa, c1=c1, c2=c2, ca1=ca1, ca2=ca2, st1=st1, st1b=st1b, api=exams_app.exams)


def _calls(w):
    """Calls of this slice's routes, one per (method, path), with valid bodies."""
    c1 = w["c1"]["id"]
    return {
        "GET /api/clients": ("GET", "/api/clients", None),
        "POST /api/clients": ("POST", "/api/clients", {"name": "New", "plan_id": "free"}),
        "PUT /api/clients/{clientId}": ("PUT", f"/api/clients/{c1}", {"address": "Street 1"}),
        "GET /api/superadmin/subscriptions": ("GET", "/api/superadmin/subscriptions", None),
        "PUT /api/superadmin/subscriptions/{clientId}": ("PUT", f"/api/superadmin/subscriptions/{c1}",
                                                         {"plan_id": "growth", "expiry_date": "2099-01-01"}),
        "GET /api/superadmin/audit-logs": ("GET", "/api/superadmin/audit-logs", None),
        "GET /api/settings": ("GET", "/api/settings", None),
        "PUT /api/settings": ("PUT", "/api/settings", {"announcement_banner": "hi"}),
        "POST /api/create-user": ("POST", "/api/create-user", None),  # body per caller below
        "GET /api/profiles": ("GET", "/api/profiles", None),
        "GET /api/subscription-requests": ("GET", "/api/subscription-requests", None),
        "POST /api/subscription-requests": ("POST", "/api/subscription-requests", {"plan_id": "enterprise"}),
        "POST /api/packages/request": ("POST", "/api/packages/request", {"package_type": "base"}),
        "GET /api/packages/requests": ("GET", "/api/packages/requests", None),
        "GET /api/packages/available": ("GET", "/api/packages/available", None),
    }


SLICE_EXPECTED = {
    "POST /api/subscription-requests": {SA: "FORBIDDEN", CA: "ok", ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
    "POST /api/packages/request": {SA: "FORBIDDEN", CA: "ok", ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
    "GET /api/subscription-requests": {SA: "ok", CA: "ok", ST: "INSUFFICIENT_PRIVILEGES", G: "MISSING_AUTH_TOKEN"},
    "GET /api/packages/requests": {SA: "ok", CA: "INSUFFICIENT_PRIVILEGES", ST: "INSUFFICIENT_PRIVILEGES",
                                   G: "MISSING_AUTH_TOKEN"},
    "GET /api/packages/available": {SA: "VALIDATION_ERROR", CA: "ok", ST: "INSUFFICIENT_PRIVILEGES",
                                    G: "MISSING_AUTH_TOKEN"},
    "GET /api/profiles": {SA: "ok", CA: "ok", ST: "ok", G: "MISSING_AUTH_TOKEN"},
}


def test_slice_routes_every_role_through_handlers(world):
    w, api = world, world["api"]
    callers = {SA: w["sa"].headers, CA: w["ca1"].headers, ST: w["st1"].headers, G: {}}
    n = 0
    for route, (method, path, body) in _calls(w).items():
        expected_row = SLICE_EXPECTED.get(route) or SPEC_MATRIX[route]
        for role, headers in callers.items():
            b = body
            if route == "POST /api/create-user":
                n += 1
                b = {"email": f"m{n}@example.com", "password": "Passw0rd!x", "name": "M", "role": "student",
                     "client_id": w["c1"]["id"]}
            r = api.request(method, path, json=b, headers=headers)
            expected = expected_row[role]
            if expected == "ok":
                assert r.status in (200, 201), (route, role, r.text)
            else:
                assert r.json()["error"] == expected, (route, role, r.text)
                assert r.status in (400, 401, 403)


def test_cross_tenant_variants(world):
    w, api = world, world["api"]
    c1 = w["c1"]["id"]
    # TENANT_MISMATCH: a client_id parameter naming another tenant
    for path in ("/api/profiles", "/api/subscription-requests", "/api/packages/available"):
        r = api.get(path, query={"client_id": c1}, headers=w["ca2"].headers)
        assert (r.status, r.json()["error"]) == (403, "TENANT_MISMATCH"), path
    r = api.post("/api/create-user", headers=w["ca2"].headers,
                 json={"email": "x@example.com", "password": "Passw0rd!x", "name": "X", "client_id": c1})
    assert (r.status, r.json()["error"]) == (403, "TENANT_MISMATCH")
    # BOLA_VIOLATION: an object of another tenant
    r = api.put(f"/api/profiles/{w['st1'].id}", json={"name": "Hacked"}, headers=w["ca2"].headers)
    assert (r.status, r.json()["error"]) == (403, "BOLA_VIOLATION")
    # IDOR_VIOLATION: an object the caller does not own
    r = api.put(f"/api/profiles/{w['st1b'].id}", json={"name": "Hacked"}, headers=w["st1"].headers)
    assert (r.status, r.json()["error"]) == (403, "IDOR_VIOLATION")
    # the rightful callers succeed
    assert api.put(f"/api/profiles/{w['st1'].id}", json={"name": "Mine"}, headers=w["st1"].headers).status == 200
    assert api.put(f"/api/profiles/{w['st1b'].id}", json={"name": "Ok"}, headers=w["ca1"].headers).status == 200
    # a CA's listing never shows another tenant's users
    ids = {p["id"] for p in api.get("/api/profiles", headers=w["ca2"].headers).json()["data"]}
    assert w["st1"].id not in ids and w["ca2"].id in ids


def test_only_super_admin_changes_role_or_client(world):
    w, api = world, world["api"]
    r = api.put(f"/api/profiles/{w['st1'].id}", json={"role": "client_admin"}, headers=w["ca1"].headers)
    assert (r.status, r.json()["error"]) == (403, "INSUFFICIENT_PRIVILEGES")
    r = api.put(f"/api/profiles/{w['st1'].id}", json={"role": "client_admin"}, headers=w["st1"].headers)
    assert r.status == 403
    r = api.put(f"/api/profiles/{w['st1'].id}", json={"client_id": w["c2"]["id"]}, headers=w["sa"].headers)
    assert r.status == 200 and r.json()["data"]["client_id"] == w["c2"]["id"]
    # the moved student is now the other tenant's
    r = api.get("/api/profiles", headers=w["ca2"].headers)
    assert w["st1"].id in {p["id"] for p in r.json()["data"]}
    assert r.json()["pagination"]["total"] == 2
