"""Clients, subscriptions, requests, packages and the billing guards."""
from __future__ import annotations

import datetime as dt

import pytest

from exams.billing import guards
from lambdakit import clock
from lambdakit.errors import ApiError


@pytest.fixture(autouse=True)
def _reset_clock():
    yield
    clock.set_offset(0)


def _err(fn, *a):
    with pytest.raises(ApiError) as ei:
        fn(*a)
    return ei.value


def test_client_creation_writes_client_subscription_limits(exams_app, exam_users):
    sa = exam_users.super_admin()
    free = exam_users.client("Free Org", "free")
    assert free["subscription"]["expiry_date"] is None and free["subscription"]["status"] == "active"
    paid = exam_users.client("Paid Org", "starter")
    start = dt.date.fromisoformat(paid["subscription"]["start_date"])
    exp = dt.date.fromisoformat(paid["subscription"]["expiry_date"])
    assert (exp.year * 12 + exp.month) - (start.year * 12 + start.month) == 1
    assert paid["limits"] == {"max_exams_per_month": None, "max_students_per_exam": None,
                              "max_questions_per_exam": None}
    r = exams_app.exams.get("/api/clients", headers=sa.headers)
    body = r.json()
    assert body["pagination"]["total"] == 2 and {c["id"] for c in body["clients"]} == {free["id"], paid["id"]}
    r = exams_app.exams.post("/api/clients", json={"name": "X", "plan_id": "platinum"}, headers=sa.headers)
    assert r.status == 400 and r.json()["details"][0]["field"] == "plan_id"
    r = exams_app.exams.put("/api/clients/nope", json={"name": "Y"}, headers=sa.headers)
    assert (r.status, r.json()["error"]) == (404, "CLIENT_NOT_FOUND")
    r = exams_app.exams.put(f"/api/clients/{paid['id']}", json={"limits": {"max_exams_per_month": 1}},
                            headers=sa.headers)
    assert r.status == 200 and r.json()["data"]["limits"]["max_exams_per_month"] == 1


def test_quota_then_lazy_expiry_and_history(exams_app, exam_users):
    sa = exam_users.super_admin()
    c = exam_users.client("Free", "free")
    cid = c["id"]
    for i in range(3):
        ent = guards.reserve_test_creation(cid, None, f"t{i}")
        assert ent.source == "subscription" and ent.features == frozenset({"analytics"}) and ent.max_questions == 50
    # idempotent per test id: a retry neither fails nor counts twice
    assert guards.reserve_test_creation(cid, None, "t2").plan_id == "free"
    e = _err(guards.reserve_test_creation, cid, None, "t3")
    assert (e.code, e.status) == ("QUOTA_EXCEEDED", 400)
    assert e.details == {"limit": 3, "current_usage": 3, "resource": "exams_per_month"}
    guards.release_test_creation(cid, ent, "t0")
    guards.reserve_test_creation(cid, None, "t3")
    e = _err(guards.check_question_capacity, cid, ent, 51)
    assert e.code == "QUOTA_EXCEEDED" and e.details["limit"] == 50
    guards.check_question_capacity(cid, ent, 50)

    # plan change by SA writes history and the new expiry; expiry is then enforced lazily
    r = exams_app.exams.put(f"/api/superadmin/subscriptions/{cid}", json={"plan_id": "starter",
                                                                          "expiry_date": clock.today()},
                            headers=sa.headers)
    assert r.status == 200 and r.json()["data"]["plan_id"] == "starter"
    clock.set_offset(2 * 86400)
    e = _err(guards.reserve_test_creation, cid, None, "t9")
    assert e.code == "SUBSCRIPTION_EXPIRED"
    r = exams_app.exams.get("/api/superadmin/subscriptions", headers=exam_users.super_admin().headers)
    assert r.status in (200, 401)  # the SA token itself may be past its lifetime now
    clock.set_offset(0)
    # history row and audit row exist
    from exams.billing import repository as repo
    hist = repo.table().query(f"CLIENT#{cid}", sk_prefix="SUBHIST#")[0]
    assert hist[0]["from_plan"] == "free" and hist[0]["to_plan"] == "starter"


def test_lazy_expiry_on_listing(exams_app, exam_users):
    exam_users.super_admin()
    c = exam_users.client("Paid", "growth")
    clock.set_offset(40 * 86400)
    from exams.billing import subscriptions
    from lambdakit.pagination import PageRequest

    items, meta = subscriptions.list_subscriptions(PageRequest(1, 20))
    assert items[0]["status"] == "expired" and meta["total"] == 1
    from exams.billing import repository as repo
    assert repo.get_subscription(c["id"], consistent=True)["status"] == "expired"


def test_subscription_request_flow(exams_app, exam_users):
    sa = exam_users.super_admin()
    c = exam_users.client("Org", "free")
    ca = exam_users.client_admin(c["id"])
    api = exams_app.exams
    r = api.post("/api/subscription-requests", json={"plan_id": "growth"}, headers=ca.headers)
    assert r.status == 201 and r.json()["data"]["status"] == "pending"
    rid = r.json()["data"]["id"]
    assert api.get("/api/subscription-requests", headers=ca.headers).json()["pagination"]["total"] == 1
    r = api.put(f"/api/subscription-requests/{rid}/approve", headers=sa.headers)
    assert r.status == 200 and r.json()["data"]["status"] == "approved"
    assert r.json()["data"]["subscription"]["plan_id"] == "growth"
    r = api.put(f"/api/subscription-requests/{rid}/approve", headers=sa.headers)
    assert (r.status, r.json()["error"]) == (409, "STATE_CONFLICT")
    assert guards.entitlement_for(c["id"]).plan_id == "growth"
    from exams.stats import counters
    g = counters.read(None)
    assert g["plan#growth"] == 1 and g.get("plan#free", 0) == 0


def test_package_lifecycle_and_exactly_once_use(exams_app, exam_users):
    sa = exam_users.super_admin()
    c = exam_users.client("Org", "free")
    other = exam_users.client("Other", "free")
    ca = exam_users.client_admin(c["id"])
    api = exams_app.exams
    r = api.post("/api/packages/request", json={"package_type": "standard"}, headers=ca.headers)
    assert r.status == 201 and r.json()["data"]["status"] == "requested"
    pid = r.json()["data"]["id"]
    assert api.post("/api/packages/request", json={"package_type": "gold"}, headers=ca.headers).status == 400
    e = _err(guards.reserve_test_creation, c["id"], pid, "t1")
    assert e.code == "STATE_CONFLICT"
    assert api.get("/api/packages/available", headers=ca.headers).json()["data"] == []
    r = api.put(f"/api/packages/requests/{pid}/approve", json={"max_questions": 80}, headers=sa.headers)
    assert r.status == 200 and r.json()["data"]["status"] == "available"
    r = api.get("/api/packages/available", headers=ca.headers)
    assert [p["id"] for p in r.json()["data"]] == [pid] and r.json()["pagination"]["total"] == 1
    # another tenant's package: the spec's cross-tenant 403 (issue 32 item 6), an unknown one 404
    assert _err(guards.reserve_test_creation, other["id"], pid, "tx").code == "BOLA_VIOLATION"
    assert _err(guards.reserve_test_creation, other["id"], "no-such-package", "tx2").code == "NOT_FOUND"
    # a racing writer that read the package while it was still available loses on the condition
    from exams.billing import repository as repo
    stale = repo.get_package(pid)
    assert _try(c["id"], pid, "race0") == "ok"
    real_get = repo.get_package
    repo.get_package = lambda *_a, **_k: dict(stale)
    try:
        assert _try(c["id"], pid, "race1") == "PACKAGE_ALREADY_USED"
    finally:
        repo.get_package = real_get
    assert _try(c["id"], pid, "race2") == "PACKAGE_ALREADY_USED"
    assert _try(c["id"], pid, "race0") == "ok"  # the same test retried: idempotent, nothing consumed twice
    ent = guards.entitlement_for(c["id"], pid)
    assert ent.source == "package" and ent.max_questions == 80 and "camera_proctoring" in ent.features
    e = _err(guards.check_question_capacity, c["id"], ent, 81)
    assert e.code == "INSUFFICIENT_PACKAGE_CAPACITY" and e.details == {"limit": 80, "requested": 81,
                                                                       "resource": "questions"}
    assert api.get("/api/packages/available", headers=ca.headers).json()["data"] == []
    r = api.get("/api/packages/requests", query={"status": "used"}, headers=sa.headers)
    assert r.json()["pagination"]["total"] == 1 and r.json()["data"][0]["test_id"].startswith("race")


def _try(cid, pid, tid):
    try:
        guards.reserve_test_creation(cid, pid, tid)
        return "ok"
    except ApiError as e:
        return e.code


def test_feature_table():
    from exams.billing.catalog import PACKAGES, PLANS
    assert PLANS["free"].features == {"analytics"}
    assert "camera_proctoring" not in PLANS["starter"].features and len(PLANS["starter"].features) == 5
    assert PACKAGES["base"].features == {"analytics", "branding"}
    assert PACKAGES["basic"].features == {"analytics", "branding", "csv", "xlsx", "advanced_proctoring"}
    assert PACKAGES["standard"].features == PACKAGES["basic"].features | {"camera_proctoring"}
    assert len(PACKAGES["placement_drive"].features) == 6 and PACKAGES["placement_drive"].max_candidates == 500
