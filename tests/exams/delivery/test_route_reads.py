"""Issue 21: a route's first key read joins authentication's BatchGetItem (``exams.identity.reads``).

Each folded route: its calls (one round trip fewer), the errors of unauthenticated, forbidden and
other-tenant callers unchanged (and the route's data then never used), fresh data on the next
request."""
from __future__ import annotations

import contextlib

import pytest


@contextlib.contextmanager
def ddb_calls():
    """The DynamoDB operations sent inside the block: ``[(name, params)]``."""
    from lambdakit import aws

    calls: list[tuple[str, dict]] = []
    ddb = aws.client("dynamodb")
    ddb.meta.events.register("before-parameter-build.dynamodb",
                             lambda model, params, **_: calls.append((model.name, params)),
                             unique_id="route-reads-calls")
    try:
        yield calls
    finally:
        ddb.meta.events.unregister("before-parameter-build.dynamodb", unique_id="route-reads-calls")


def names(calls) -> list[str]:
    """The operations sent, sorted (with a warm key set the rate limit's UpdateItem comes first)."""
    return sorted(n for n, _ in calls)


def batch_keys(calls) -> list[set[tuple[str, str]]]:
    """The keys of every BatchGetItem sent."""
    out = []
    for n, p in calls:
        if n == "BatchGetItem":
            (req,) = p["RequestItems"].values()
            out.append({(k["pk"]["S"], k["sk"]["S"]) for k in req["Keys"]})
    return out


def batch_consistent(calls) -> list[bool]:
    return [next(iter(p["RequestItems"].values())).get("ConsistentRead", False)
            for n, p in calls if n == "BatchGetItem"]


ONE_BATCH = ["BatchGetItem", "Query", "UpdateItem"]  # authentication + route items, rate limit, the list


def get(app, path, user=None, **query):
    return app.exams.get(path, headers=user.headers if user else {}, query=query or None)


def global_counter_keys():
    from exams.stats import counters

    return set(counters.keys(None))


# ------------------------------------------------------------------ super admin lists (SA-only routes)
@pytest.mark.parametrize("path,total_of", [("/api/clients", "clients"), ("/api/superadmin/subscriptions", "clients")])
def test_super_admin_list_reads_its_total_with_authentication(exams_app, exam_users, tenant, path, total_of):
    sa = exam_users.super_admin()
    get(exams_app, path, sa)  # the sign-in's login entry written
    with ddb_calls() as calls:
        r = get(exams_app, path, sa)
    assert r.status == 200, r.text
    assert names(calls) == ONE_BATCH, names(calls)
    assert global_counter_keys() <= batch_keys(calls)[0]
    before = r.json()["pagination"]["total"]
    exam_users.client(name="Another")
    r = get(exams_app, path, sa)  # fresh data on the next request
    assert r.json()["pagination"]["total"] == before + 1


@pytest.mark.parametrize("path", ["/api/clients", "/api/superadmin/subscriptions"])
def test_super_admin_list_refuses_others_as_before(exams_app, tenant, path):
    with ddb_calls() as calls:
        r = get(exams_app, path, tenant.ca)
    assert r.status == 403 and r.json()["error"] == "INSUFFICIENT_PRIVILEGES", r.text
    assert "Query" not in names(calls)  # the route never ran
    r = get(exams_app, path, tenant.students[0])
    assert r.status == 403 and r.json()["error"] == "INSUFFICIENT_PRIVILEGES"
    with ddb_calls() as calls:
        r = get(exams_app, path)
    assert r.status == 401 and r.json()["error"] == "MISSING_AUTH_TOKEN"
    assert "BatchGetItem" not in names(calls)
    r = exams_app.exams.get(path, headers={"Authorization": "Bearer garbage"})
    assert r.status == 401 and r.json()["error"] == "INVALID_TOKEN"


# ------------------------------------------------------------------ profiles, dashboard (SA and CA)
def test_profiles_list_of_a_super_admin_and_a_client_admin(exams_app, exam_users, tenant, monkeypatch):
    from exams.identity import reads

    sa = exam_users.super_admin()
    get(exams_app, "/api/profiles", sa)
    with ddb_calls() as calls:
        r = get(exams_app, "/api/profiles", sa)
    assert r.status == 200 and names(calls) == ONE_BATCH, names(calls)
    total = r.json()["pagination"]["total"]
    exam_users.student(tenant.cid)
    assert get(exams_app, "/api/profiles", sa).json()["pagination"]["total"] == total + 1

    # a client admin: their tenant's counters (from the profile) are read by the route, as before
    monkeypatch.setattr(reads, "_roles", {})  # a process that has not seen them
    with ddb_calls() as calls:
        r = get(exams_app, "/api/profiles", tenant.ca)
    assert r.status == 200 and r.json()["pagination"]["total"] == 3  # CA + two students
    assert names(calls).count("BatchGetItem") == 2, names(calls)
    with ddb_calls() as calls:  # known as a client admin now: the global counters are no longer read
        r = get(exams_app, "/api/profiles", tenant.ca)
    assert r.status == 200 and r.json()["pagination"]["total"] == 3
    assert not global_counter_keys() & batch_keys(calls)[0]
    # naming their own tenant: folded; another tenant: refused as before
    with ddb_calls() as calls:
        r = get(exams_app, "/api/profiles", tenant.ca, client_id=tenant.cid)
    assert r.status == 200 and r.json()["pagination"]["total"] == 3
    assert names(calls) == ONE_BATCH, names(calls)
    other = exam_users.client(name="Other")
    r = get(exams_app, "/api/profiles", tenant.ca, client_id=other["id"])
    assert r.status == 403 and r.json()["error"] == "TENANT_MISMATCH"


def test_dashboard_reads_counters_and_activity_with_authentication(exams_app, exam_users, tenant):
    sa = exam_users.super_admin()
    get(exams_app, "/api/stats/dashboard", sa)
    with ddb_calls() as calls:
        r = get(exams_app, "/api/stats/dashboard", sa)
    assert r.status == 200, r.text
    assert names(calls) == ["BatchGetItem", "BatchGetItem", "Query", "Query", "UpdateItem"], names(calls)
    clients = r.json()["data"]["totals"]["clients"]
    exam_users.client(name="Fresh")
    assert get(exams_app, "/api/stats/dashboard", sa).json()["data"]["totals"]["clients"] == clients + 1
    r = get(exams_app, "/api/stats", tenant.ca, client_id=tenant.cid)
    assert r.status == 200 and r.json()["data"]["role"] != "super_admin"
    other = exam_users.client(name="Other")
    r = get(exams_app, "/api/stats", tenant.ca, client_id=other["id"])
    assert r.status == 403 and r.json()["error"] == "TENANT_MISMATCH"
    r = get(exams_app, "/api/stats/dashboard", tenant.students[0])
    assert r.status == 403 and r.json()["error"] == "INSUFFICIENT_PRIVILEGES"


# ------------------------------------------------------------------ tenant lists' totals (client_id in the query)
def test_tests_and_questions_totals_with_client_id(exams_app, exam_users, tenant):
    sa = exam_users.super_admin()
    tenant.test([q["id"] for q in tenant.questions(1)])
    for path in ("/api/tests", "/api/questions"):
        get(exams_app, path, sa, client_id=tenant.cid)
        with ddb_calls() as calls:
            r = get(exams_app, path, sa, client_id=tenant.cid)
        assert r.status == 200 and r.json()["pagination"]["total"] == 1, r.text
        assert names(calls) == ONE_BATCH, names(calls)
        r = get(exams_app, path, tenant.ca, client_id=tenant.cid)
        assert r.status == 200 and r.json()["pagination"]["total"] == 1
        other = exam_users.client(name="Other")
        r = get(exams_app, path, tenant.ca, client_id=other["id"])
        assert r.status == 403 and r.json()["error"] == "TENANT_MISMATCH", r.text
        assert get(exams_app, path, client_id=tenant.cid).status == 401
    # fresh totals on the next request
    tenant.test([q["id"] for q in tenant.questions(1)])
    assert get(exams_app, "/api/tests", sa, client_id=tenant.cid).json()["pagination"]["total"] == 2
    assert get(exams_app, "/api/questions", sa, client_id=tenant.cid).json()["pagination"]["total"] == 2
    # without client_id a client admin's tenant comes from the profile: the total is the route's own read
    with ddb_calls() as calls:
        r = get(exams_app, "/api/tests", tenant.ca)
    assert r.status == 200 and r.json()["pagination"]["total"] == 2
    assert names(calls).count("GetItem") == 1, names(calls)


# ------------------------------------------------------------------ attempts by test, proctoring events
def test_attempts_by_test_reads_the_test_with_authentication(exams_app, exam_users, tenant):
    sa = exam_users.super_admin()
    t = tenant.test([q["id"] for q in tenant.questions(1)])
    tenant.start(t)
    get(exams_app, "/api/attempts", sa, test_id=t["id"])
    with ddb_calls() as calls:
        r = get(exams_app, "/api/attempts", sa, test_id=t["id"])
    assert r.status == 200 and r.json()["pagination"]["total"] == 1, r.text
    assert names(calls) == ONE_BATCH, names(calls)
    assert get(exams_app, "/api/attempts", tenant.ca, test_id=t["id"]).status == 200
    other = exam_users.client(name="Other")
    oca = exam_users.client_admin(other["id"])
    r = get(exams_app, "/api/attempts", oca, test_id=t["id"])
    assert r.status == 403 and r.json()["error"] == "BOLA_VIOLATION", r.text
    r = get(exams_app, "/api/attempts", tenant.students[0], test_id=t["id"])
    assert r.status == 403 and r.json()["error"] == "FORBIDDEN", r.text
    r = get(exams_app, "/api/attempts", sa, test_id="no-such-test")
    assert r.status == 404 and r.json()["error"] == "TEST_NOT_FOUND"
    second = exam_users.student(tenant.cid)
    tenant.start(t, second)
    assert get(exams_app, "/api/attempts", sa, test_id=t["id"]).json()["pagination"]["total"] == 2


def test_proctoring_events_read_the_attempt_with_authentication(exams_app, exam_users, tenant):
    sa = exam_users.super_admin()
    t = tenant.test([q["id"] for q in tenant.questions(1)])
    a = tenant.start(t)
    student = tenant.students[0]
    get(exams_app, "/api/proctoring/events", student, attempt_id=a["id"])
    with ddb_calls() as calls:
        r = get(exams_app, "/api/proctoring/events", student, attempt_id=a["id"])
    assert r.status == 200 and r.json()["pagination"]["total"] == 0, r.text
    assert names(calls) == ONE_BATCH, names(calls)
    assert batch_consistent(calls) == [True]  # the route's read of the attempt is strongly consistent
    r = exams_app.exams.post("/api/proctoring/events", json={"attempt_id": a["id"], "event_type": "tab_switch"},
                             headers=student.headers)
    assert r.status in (200, 201), r.text
    # fresh data on the next request
    assert get(exams_app, "/api/proctoring/events", sa, attempt_id=a["id"]).json()["pagination"]["total"] == 1
    assert get(exams_app, "/api/proctoring/events", tenant.ca, attempt_id=a["id"]).status == 200
    other = exam_users.student(tenant.cid)
    r = get(exams_app, "/api/proctoring/events", other, attempt_id=a["id"])
    assert r.status == 403 and r.json()["error"] == "ATTEMPT_NOT_OWNER", r.text
    oca = exam_users.client_admin(exam_users.client(name="Other")["id"])
    r = get(exams_app, "/api/proctoring/events", oca, attempt_id=a["id"])
    assert r.status == 403 and r.json()["error"] == "BOLA_VIOLATION", r.text
    r = get(exams_app, "/api/proctoring/events", attempt_id=a["id"])  # neither a token nor attempt_token
    assert r.status in (401, 403) and r.json()["error"] == _no_token_error(exams_app, a["id"])
    r = get(exams_app, "/api/proctoring/events", sa, attempt_id="missing")
    assert r.status == 404


def _no_token_error(app, attempt_id):
    """What the route answers an anonymous caller (the route's own check, no batch involved): a
    student's attempt with no credential at all is 401 MISSING_AUTH_TOKEN (round 11)."""
    from exams.attempts.access import missing_auth

    return missing_auth().code


# ------------------------------------------------------------------ the hand-over's guarantees
def test_items_are_handed_over_only_after_authorisation(exams_app, exam_users, tenant, monkeypatch):
    """Maintenance mode (503) and a disabled account (403): the route never runs and nothing read
    is handed on; a cold process (no key set) reads the route's items with the key set, in one call."""
    from exams.identity import jwks

    sa = exam_users.super_admin()
    # a cold process: the key set, the profile, the settings and the route's items in one call
    get(exams_app, "/api/clients", sa)
    monkeypatch.setattr(jwks, "needs_item", lambda: True)
    with ddb_calls() as calls:
        r = get(exams_app, "/api/clients", sa)
    assert r.status == 200 and names(calls).count("BatchGetItem") == 1, names(calls)
    assert global_counter_keys() <= batch_keys(calls)[0]
    monkeypatch.undo()

    r = exams_app.exams.put("/api/settings", json={"maintenance_mode": True}, headers=sa.headers)
    assert r.status == 200, r.text
    try:
        with ddb_calls() as calls:
            r = get(exams_app, "/api/tests", tenant.ca, client_id=tenant.cid)
        assert r.status == 503 and r.json()["error"] == "SERVICE_UNAVAILABLE"
        assert "Query" not in names(calls)
    finally:
        r = exams_app.exams.put("/api/settings", json={"maintenance_mode": False}, headers=sa.headers)
        assert r.status == 200, r.text


def test_declaration_guards():
    from exams.identity import reads

    decl = reads.Reads(lambda req: [("X#" + (req.arg("id") or "none"), "META")])
    assert reads.keys_for(decl, None, {"id": "a" * 300}, "u1") == (("X#none", "META"),)
    assert reads.keys_for(decl, None, {"id": "abc"}, "u1") == (("X#abc", "META"),)

    def broken(_req):
        raise RuntimeError("bug")

    assert reads.keys_for(reads.Reads(broken), {}, {}, "u1") == ()
    reads.remember_role("u-ca", "client_admin")
    seen = []
    reads.keys_for(reads.Reads(lambda req: seen.append(req.maybe_super_admin) or []), {}, {}, "u-ca")
    reads.keys_for(reads.Reads(lambda req: seen.append(req.maybe_super_admin) or []), {}, {}, "u-new")
    assert seen == [False, True]
