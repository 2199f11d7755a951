"""Issue 32 item 6: the exams spec's cross-tenant rule (rule 6, error table) — a client admin or a
student touching another client's data gets 403 ``BOLA_VIOLATION`` / ``TENANT_MISMATCH``, for path,
query and body ids, on every route; ids that exist nowhere stay 404.

The path walk is driven by the route table of the exams template (every route with an id in its
path), filled with the other tenant's real ids: a new id-bearing route is walked without anyone
adding it here."""
from __future__ import annotations

import re

import pytest

from local_runtime.testing import services
from tests.exams.delivery.delivery_helpers import mcq

CROSS = {"BOLA_VIOLATION", "TENANT_MISMATCH"}
#: refused on the role before any id is read (the permission matrix): 403 whatever the id
ROLE = {"FORBIDDEN", "INSUFFICIENT_PRIVILEGES"}
ID_ROUTES = sorted({(r.method, r.path) for r in services()["exams"].routes if "{" in r.path})
BODIES = {
    ("PUT", "/api/tests/{testId}"): {"test_name": "Renamed"},
    ("POST", "/api/attempts/{attemptId}/answers"): {"question_id": "q", "student_answer": "A"},
    ("PUT", "/api/attempts/{attemptId}/grades"): {"grades": [{"question_id": "q", "marks": 1}]},
    ("PUT", "/api/clients/{clientId}"): {"name": "X"},
    ("PUT", "/api/profiles/{profileId}"): {"name": "X"},
    ("PUT", "/api/superadmin/subscriptions/{clientId}"): {"plan_id": "free"},
}


def _code(r) -> str | None:
    body = r.json() if r.body else {}
    return body.get("error") if isinstance(body.get("error"), str) else body.get("code")


@pytest.fixture
def victim(two_tenants):
    """Tenant B's real objects, and the ids the route table's parameters name."""
    a, b = two_tenants
    api, sa = b.app.exams, b.users.super_admin()
    test = b.test([b.question(**mcq("B's question"))["id"]])
    attempt = b.start(test)
    r = api.post("/api/packages/request", json={"package_type": "basic"}, headers=b.ca.headers)
    assert r.status == 201, r.text
    r2 = api.post("/api/subscription-requests", json={"plan_id": "growth"}, headers=b.ca.headers)
    assert r2.status == 201, r2.text
    ids = {"testId": test["id"], "attemptId": attempt["id"], "studentId": b.students[0].id, "clientId": b.cid,
           "profileId": b.students[0].id}
    requests = {"/api/packages/requests/": r.json()["data"]["id"], "/api/subscription-requests/": r2.json()["data"]["id"]}
    return a, b, ids, requests, sa


#: query parameters to send (none needed: the id's tenant is checked before any parameter)
QUERIES: dict = {}


def _fill(path: str, ids: dict, requests: dict) -> str:
    def one(m):
        name = m.group(1)
        if name == "requestId":
            return next(v for k, v in requests.items() if path.startswith(k))
        return ids[name]
    return re.sub(r"\{(\w+)\}", one, path)


def test_the_walk_covers_the_id_bearing_routes():
    assert len(ID_ROUTES) >= 15 and ("GET", "/api/analytics/students/{studentId}") in ID_ROUTES


@pytest.mark.parametrize("method,path", ID_ROUTES, ids=[f"{m} {p}" for m, p in ID_ROUTES])
def test_another_tenants_path_ids_are_403(victim, method, path):
    a, b, ids, requests, _ = victim
    url = _fill(path, ids, requests)
    for who in (a.ca, a.students[0]):
        r = a.app.exams.request(method, url, json=BODIES.get((method, path)), headers=who.headers,
                                query=QUERIES.get((method, path)))
        assert r.status == 403, (who.role if hasattr(who, "role") else who, method, url, r.status, r.text)
        assert _code(r) in CROSS | ROLE, r.text


def test_role_permitted_routes_answer_the_cross_tenant_codes(victim):
    """Where the caller's role may use the route, the 403 is the cross-tenant one, not a role refusal."""
    a, b, ids, requests, _ = victim
    api = a.app.exams
    for method, path, who in [("GET", "/api/analytics/students/{studentId}", a.ca),
                              ("GET", "/api/tests/{testId}", a.ca), ("GET", "/api/tests/{testId}", a.students[0]),
                              ("PUT", "/api/tests/{testId}", a.ca), ("GET", "/api/attempts/{attemptId}", a.ca),
                              ("GET", "/api/attempts/{attemptId}", a.students[0]),
                              ("GET", "/api/attempts/{attemptId}/report", a.ca),
                              ("GET", "/api/analytics/tests/{testId}", a.ca),
                              ("GET", "/api/tests/{testId}/guests", a.ca)]:
        r = api.request(method, _fill(path, ids, requests), json=BODIES.get((method, path)), headers=who.headers)
        assert (r.status, _code(r)) in {(403, c) for c in CROSS}, (method, path, r.text)


def test_ids_that_exist_nowhere_stay_404(victim):
    a, *_ = victim
    api = a.app.exams
    for path in ("/api/analytics/students/no-such-user", "/api/tests/no-such-test", "/api/attempts/no-such-attempt"):
        assert api.get(path, headers=a.ca.headers).status == 404, path


def test_another_tenants_ids_in_bodies_and_queries_are_403(victim):
    a, b, ids, _, sa = victim
    api = a.app.exams
    own_test = a.test([a.question(**mcq("A's question"))["id"]])
    # body student_id: A's admin (BOLA) and a super admin pairing B's student with A's test (TENANT_MISMATCH)
    r = api.post("/api/attempts", json={"test_id": own_test["id"], "student_id": ids["studentId"]},
                 headers=a.ca.headers)
    assert (r.status, _code(r)) == (403, "BOLA_VIOLATION"), r.text
    r = api.post("/api/attempts", json={"test_id": own_test["id"], "student_id": ids["studentId"]},
                 headers=sa.headers)
    assert (r.status, _code(r)) == (403, "TENANT_MISMATCH"), r.text
    # query student_id
    r = api.get("/api/attempts", query={"student_id": ids["studentId"]}, headers=a.ca.headers)
    assert (r.status, _code(r)) == (403, "BOLA_VIOLATION"), r.text
    # body question ids (issue 17 had these answer 404 QUESTION_NOT_FOUND; the spec says 403)
    qb = b.question(**mcq("B's other question"))["id"]
    r = api.post("/api/tests", json={"test_name": "T", "timer": 30, "question_ids": [qb]}, headers=a.ca.headers)
    assert (r.status, _code(r)) == (403, "BOLA_VIOLATION"), r.text
    # an unknown question id is still 404
    r = api.post("/api/tests", json={"test_name": "T", "timer": 30, "question_ids": ["no-such-q"]},
                 headers=a.ca.headers)
    assert (r.status, _code(r)) == (404, "QUESTION_NOT_FOUND"), r.text
