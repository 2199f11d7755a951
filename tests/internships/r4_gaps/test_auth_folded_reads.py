"""Issue #21 (cold first request): a route's first key read, folded into authentication's BatchGetItem.

``GET /api/milestones`` and ``GET /api/resources/{enrollmentId}`` (the enrollment), the admin
announcements and users lists (their total's counter item), the engagement and conversion tiles (their
counters) and the milestone review and forced status (the milestone, strongly consistent) read it with
the caller's user item: one round trip fewer. Each test checks the call count, that the answer is
today's, that nothing is cached across requests, and that refused callers get exactly today's errors
(no item read with authentication reaches them)."""
from __future__ import annotations

import pytest

from bench.callcount import count_calls
from lambdakit.ddb import Table
from tests.internships.journey.helpers import enroll_and_pay, make_domain


def _ddb(cc) -> dict[str, int]:
    return {k: v for k, v in cc.calls.items() if k.startswith("dynamodb.")}


@pytest.fixture
def batches(monkeypatch):
    """Every ``Table.get_many`` call as (keys, consistent)."""
    seen: list[tuple[list, bool]] = []
    real = Table.get_many

    def spy(self, keys, *, consistent=False):
        seen.append((list(keys), consistent))
        return real(self, keys, consistent=consistent)

    monkeypatch.setattr(Table, "get_many", spy)
    return seen


@pytest.fixture
def world(gaps, intern_users, intern_seed):
    c = gaps.internships
    admin = intern_users.staff("admin")
    dom = make_domain(c, admin)
    s = intern_users.student(name="Asha Rao")
    e = enroll_and_pay(c, s, dom, intern_seed)
    return c, admin, s, e


def _no_reads(c, path, method="get", **kw):
    """Anonymous and forged-token callers: today's 401, and no DynamoDB call at all."""
    call = getattr(c, method)
    for headers, error in (({}, "Authentication required"),
                           ({"Authorization": "Bearer not.a.token"}, "Invalid or expired token")):
        with count_calls() as cc:
            r = call(path, headers=headers, **kw)
        assert (r.status, r.json()) == (401, {"error": error})
        assert _ddb(cc) == {}


# ---------------------------------------------------------------- student learning routes
def test_milestones_read_the_enrollment_with_authentication(world, batches):
    c, admin, s, e = world
    with count_calls() as cc:
        r = c.get("/api/milestones", headers=s.headers, query={"enrollmentId": e["id"]})
    assert r.status == 200, r.text
    assert _ddb(cc) == {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 1}
    assert (f"ENROLL#{e['id']}", "ENROLL") in batches[-1][0] and batches[-1][1] is False
    body = r.json()
    assert body["enrollmentId"] == e["id"] and body["enrollmentStatus"] == "active"
    assert [m["locked"] for m in body["milestones"]] == [False, True, True]
    # the staff view of someone else's enrollment is allowed as before
    r = c.get("/api/milestones", headers=admin.headers, query={"enrollmentId": e["id"]})
    assert r.status == 200 and r.json()["enrollmentId"] == e["id"]


def test_milestones_refusals_are_unchanged(world, intern_users, batches):
    c, admin, s, e = world
    _no_reads(c, "/api/milestones", query={"enrollmentId": e["id"]})
    other = intern_users.student()
    for headers, q in ((other.headers, {"enrollmentId": e["id"]}), (s.headers, {"enrollmentId": "nope"}),
                       (s.headers, {"enrollmentId": "x" * 65})):
        r = c.get("/api/milestones", headers=headers, query=q)
        assert (r.status, r.json()) == (404, {"error": "Enrollment not found"})
    r = c.get("/api/milestones", headers=s.headers)
    assert (r.status, r.json()) == (400, {"error": "enrollmentId is required"})
    # an over-long id is not a key: nothing extra is read for it
    n = len(batches)
    c.get("/api/milestones", headers=s.headers, query={"enrollmentId": "x" * 65})
    assert all(len(keys) == 2 for keys, _ in batches[n:])


def test_a_disabled_account_gets_401_before_its_enrollment_is_used(world):
    from internships.store import table

    c, admin, s, e = world
    table().update(f"USER#{s.id}", "PROFILE", set={"disabled": True})
    r = c.get("/api/milestones", headers=s.headers, query={"enrollmentId": e["id"]})
    assert (r.status, r.json()) == (401, {"error": "Account not found or disabled"})
    r = c.get(f"/api/resources/{e['id']}", headers=s.headers)
    assert (r.status, r.json()) == (401, {"error": "Account not found or disabled"})


def test_resources_read_the_enrollment_with_authentication(world, intern_users):
    from internships.store import table

    c, admin, s, e = world
    with count_calls() as cc:
        r = c.get(f"/api/resources/{e['id']}", headers=s.headers)
    assert r.status == 200, r.text
    assert _ddb(cc) == {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 1}
    assert r.json()["enrollmentId"] == e["id"] and r.json()["domainId"] == e["domainId"]
    _no_reads(c, f"/api/resources/{e['id']}")
    r = c.get(f"/api/resources/{e['id']}", headers=intern_users.student().headers)
    assert (r.status, r.json()) == (404, {"error": "Enrollment not found"})
    # read afresh on every request: a status change shows at once
    table().update(f"ENROLL#{e['id']}", "ENROLL", set={"status": "pending"})
    r = c.get(f"/api/resources/{e['id']}", headers=s.headers)
    assert (r.status, r.json()) == (403, {"error": "Resources are available once the enrollment is active"})


# ---------------------------------------------------------------- admin lists
def test_announcements_list_reads_its_total_with_authentication(gaps, intern_users):
    c = gaps.internships
    admin = intern_users.staff("admin")
    body = {"title": "Welcome", "content": "Hello everyone", "category": "general", "priority": 1,
            "target_audience": "all", "status": "active", "is_active": True}
    for i in range(2):
        with count_calls() as cc:
            r = c.get("/api/admin/announcements", headers=admin.headers)
        assert r.status == 200, r.text
        assert _ddb(cc) == {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 1}
        assert r.json()["total"] == i and len(r.json()["announcements"]) == i
        assert c.post("/api/admin/announcements", headers=admin.headers, json=body).status == 201
    _no_reads(c, "/api/admin/announcements")
    for role in ("reviewer",):
        r = c.get("/api/admin/announcements", headers=intern_users.staff(role).headers)
        assert (r.status, r.json()) == (403, {"error": "You do not have permission to perform this action"})
    r = c.get("/api/admin/announcements", headers=intern_users.student().headers)
    assert (r.status, r.json()) == (403, {"error": "You do not have permission to perform this action"})
    r = c.get("/api/admin/announcements", headers=admin.headers, query={"page": "x"})
    assert (r.status, r.json()) == (400, {"error": "page must be an integer"})


def test_users_list_reads_its_total_with_authentication(gaps, intern_users, batches):
    c = gaps.internships
    sa = intern_users.staff("super_admin")
    intern_users.student()
    with count_calls() as cc:
        r = c.get("/api/admin/users", headers=sa.headers)
    assert r.status == 200, r.text
    assert _ddb(cc) == {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 1}
    assert r.json()["total"] == 2 and len(r.json()["users"]) == 2
    with count_calls() as cc:
        r = c.get("/api/admin/users", headers=sa.headers, query={"role": "student"})
    assert _ddb(cc) == {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 1}
    assert r.json()["total"] == 1 and [u["role"] for u in r.json()["users"]] == ["student"]
    assert ("COUNTERS", "users#role#student") in batches[-1][0]
    # a search counts by query, an unknown role is refused: nothing extra is read for them
    n = len(batches)
    r = c.get("/api/admin/users", headers=sa.headers, query={"role": "pirate"})
    assert (r.status, r.json()) == (400, {"error": "role must be one of student, admin, super_admin, "
                                                   "project_admin, reviewer"})
    r = c.get("/api/admin/users", headers=sa.headers, query={"search": "student"})
    assert r.status == 200 and r.json()["total"] == 1
    assert [len(keys) for keys, _ in batches[n:]] == [2, 2]
    _no_reads(c, "/api/admin/users")
    r = c.get("/api/admin/users", headers=intern_users.staff("admin").headers)
    assert (r.status, r.json()) == (403, {"error": "You do not have permission to perform this action"})


def test_engagement_and_conversion_read_their_counters_with_authentication(gaps, intern_users):
    c = gaps.internships
    admin = intern_users.staff("admin")
    intern_users.student()
    for path, calls in (("/api/admin/analytics/engagement", {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 1}),
                        ("/api/admin/analytics/conversion", {"dynamodb.BatchGetItem": 1})):
        with count_calls() as cc:
            r = c.get(path, headers=admin.headers)
        assert r.status == 200, r.text
        assert _ddb(cc) == calls
        _no_reads(c, path)
        r = c.get(path, headers=intern_users.student().headers)
        assert (r.status, r.json()) == (403, {"error": "You do not have permission to perform this action"})
    tiles = {t["key"]: t["value"] for t in c.get("/api/admin/analytics/engagement", headers=admin.headers)
             .json()["tiles"]}
    assert tiles["totalStudents"] == 3
    assert c.post("/api/analytics/visit", json={"visitorId": "v-123456789"}).status in (200, 201, 204)
    steps = c.get("/api/admin/analytics/conversion", headers=admin.headers).json()
    assert "visitors" in str(steps) and "signups" in str(steps)


# ---------------------------------------------------------------- review and forced status
def _submit(c, s, mid):
    r = c.post(f"/api/milestones/{mid}/submit", headers=s.headers,
               json={"submissionNotes": "Here is my work for this step"})
    assert r.status == 200, r.text


def test_force_status_reads_the_milestone_consistently_with_authentication(world, intern_users, batches):
    c, admin, s, e = world
    mid = f"{e['id']}-01"
    with count_calls() as cc:
        r = c.post(f"/api/admin/milestones/{mid}/force-status", headers=admin.headers,
                   json={"status": "submitted", "remarks": "set"})
    assert r.status == 200, r.text
    assert r.json()["milestone"]["status"] == "submitted" and r.json()["milestone"]["remarks"] == "set"
    assert _ddb(cc) == {"dynamodb.BatchGetItem": 1, "dynamodb.TransactWriteItems": 2}
    keys, consistent = batches[-1]
    assert (f"ENROLL#{e['id']}", "MS#01") in keys and consistent is True
    # the next request sees the change (nothing kept between requests)
    r = c.post(f"/api/admin/milestones/{mid}/force-status", headers=admin.headers,
               json={"status": "reviewed", "remarks": "done"})
    assert r.status == 200 and r.json()["milestone"]["status"] == "reviewed"
    _no_reads(c, f"/api/admin/milestones/{mid}/force-status", method="post", json={"status": "pending"})
    for who in (intern_users.staff("reviewer"), s):
        r = c.post(f"/api/admin/milestones/{mid}/force-status", headers=who.headers, json={"status": "pending"})
        assert (r.status, r.json()) == (403, {"error": "You do not have access to this resource"})
    for bad in (f"{e['id']}-09", "no-dash-number-x", "x"):
        r = c.post(f"/api/admin/milestones/{bad}/force-status", headers=admin.headers, json={"status": "pending"})
        assert (r.status, r.json()) == (404, {"error": "Milestone not found"})


def test_review_reads_the_milestone_consistently_with_authentication(world, intern_users, batches):
    c, admin, s, e = world
    mid = f"{e['id']}-01"
    r = c.post(f"/api/admin/milestones/{mid}/review", headers=admin.headers, json={"remarks": "ok"})
    assert (r.status, r.json()) == (409, {"error": "Only a submitted milestone can be reviewed (it is pending)"})
    _submit(c, s, mid)
    with count_calls() as cc:
        r = c.post(f"/api/admin/milestones/{mid}/review", headers=admin.headers, json={"remarks": "good"})
    assert r.status == 200, r.text
    assert r.json()["milestone"]["status"] == "reviewed"
    # the milestone and its enrollment (the e-mail's address) in the authentication batch; the review's
    # transaction (with its e-mail) and the activity log's
    assert _ddb(cc) == {"dynamodb.BatchGetItem": 1, "dynamodb.TransactWriteItems": 2}
    keys, consistent = next(b for b in reversed(batches) if (f"ENROLL#{e['id']}", "MS#01") in b[0])
    assert (f"ENROLL#{e['id']}", "ENROLL") in keys and consistent is True
    from internships.store import table

    mails = [i for i in table().query_all("EMAILTPL#milestone_approved", index="gsi3", max_items=100)]
    assert [(m["to"], m["data"]["remarks"]) for m in mails] == [(s.email, "good")]
    r = c.post(f"/api/admin/milestones/{mid}/review", headers=admin.headers, json={"remarks": "again"})
    assert (r.status, r.json()) == (409, {"error": "Only a submitted milestone can be reviewed (it is reviewed)"})
    _no_reads(c, f"/api/admin/milestones/{mid}/review", method="post", json={"remarks": "x"})
    r = c.post(f"/api/admin/milestones/{mid}/review", headers=s.headers, json={"remarks": "x"})
    assert (r.status, r.json()) == (403, {"error": "You do not have permission to perform this action"})


def test_a_route_without_reads_and_a_principal_resolved_twice_still_read_themselves(world):
    """``read_with_auth`` holds only the keys read with authentication in this request."""
    from internships.auth import read_with_auth

    class _App:
        context: dict = {}

    assert read_with_auth(_App()) == {}
    c, admin, s, e = world
    with count_calls() as cc:
        r = c.get("/api/enrollments/my-enrollments", headers=s.headers)
    assert r.status == 200 and "dynamodb.BatchGetItem" in cc.calls
