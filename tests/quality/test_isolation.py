"""Tenant and ownership isolation for every route of the three services that takes an id.

Campaigns: two accounts created by the operator command's Python entry (``tools/account.py``,
``make account``), never by writing storage; every authenticated route with an id in its path
is walked with the first account's ids under the second account's Admin key (404, nothing changed).

The route list comes from the templates (every route with a path parameter); each route is
classified once below, and ``test_every_id_route_is_classified`` fails when a route is added
without a class. Classes and what is asserted:

* ``tenant`` (exams): a client admin and a student of another client get 403 or 404 on
  the first client's object (403 ``BOLA_VIOLATION``/``TENANT_MISMATCH``/``FORBIDDEN`` where
  the service reveals the object exists to no one else, 404 where it hides it).
* ``owner`` (exams attempts, internships learner routes): another student gets 403/404 and the
  object is unchanged.
* ``platform`` (exams super-admin routes on a client/request): a client admin gets 403.
* ``staff`` (internships ``/api/admin/*``): a student gets 403 (the per-permission matrix is
  tests/internships/admin/test_route_role_matrix.py).
* ``public``: no owner (certificate verification, avatars, catalogue by slug, announcement
  read receipts are the caller's own).
"""
from __future__ import annotations

import re

import pytest

from tests.internships.journey.helpers import enroll_and_pay, make_domain
from tests.quality.conftest import assert_error

EXAMS = {
    "PUT /api/packages/requests/{requestId}/approve": "platform",
    "PUT /api/superadmin/subscriptions/{clientId}": "platform",
    "PUT /api/subscription-requests/{requestId}/approve": "platform",
    "PUT /api/clients/{clientId}": "platform",
    "POST /api/tests/{testId}/publish": "tenant",
    "GET /api/tests/{testId}/guests": "tenant",
    "GET /api/tests/{testId}": "tenant",
    "PUT /api/tests/{testId}": "tenant",
    "DELETE /api/tests/{testId}": "tenant",
    "GET /api/analytics/tests/{testId}": "tenant",
    "GET /api/analytics/students/{studentId}": "tenant",
    "PUT /api/profiles/{profileId}": "tenant",
    "POST /api/attempts/{attemptId}/answers": "owner",
    "POST /api/attempts/{attemptId}/submit": "owner",
    "PUT /api/attempts/{attemptId}/grades": "tenant",
    "GET /api/attempts/{attemptId}/report": "owner",
    "GET /api/attempts/{attemptId}": "owner",
    "GET /api/attempt-answers/{attemptId}": "owner",
    "GET /api/tests/{testId}/export": "tenant",
}
INTERNSHIPS_OWNER = {
    "POST /api/milestones/{id}/submit", "GET /api/invoices/{id}/download-simple",
    "GET /api/certificates/{certificateId}/download", "POST /api/enrollments/{id}/submit",
    "POST /api/enrollments/{id}/cancel", "GET /api/resources/{enrollmentId}",
    "GET /api/certificates/{certificateId}/credential", "GET /api/certificates/{certificateId}/badge.png",
}
INTERNSHIPS_PUBLIC = {
    "GET /api/certificates/verify/{certificateId}", "GET /api/avatars/{userId}", "GET /api/domains/{slug}",
    "POST /api/announcements/{id}/read",
    # public by design (the published revocation list) / the cron secret, not a user (cron task status)
    "GET /api/credentials/status/{listId}", "GET /api/cron/tasks/{taskId}",
}


def _id_routes(service: str) -> set[str]:
    from local_runtime import stack

    return {f"{r.method} {r.path}" for r in stack.load_all()[service].routes if r.params}


def _internships_class(key: str) -> str | None:
    if key in INTERNSHIPS_OWNER:
        return "owner"
    if key in INTERNSHIPS_PUBLIC:
        return "public"
    if key.split(" ", 1)[1].startswith("/api/admin/"):
        return "staff"
    return None


def test_every_id_route_is_classified():
    assert _id_routes("exams") == set(EXAMS)
    assert [k for k in _id_routes("internships") if _internships_class(k) is None] == []


def _fill(path: str, value: str) -> str:
    return re.sub(r"\{[^}]+\}", value, path)


BODIES = {"PUT /api/tests/{testId}": {"test_name": "Hijacked"}, "PUT /api/profiles/{profileId}": {"name": "Hijacked"},
          "POST /api/attempts/{attemptId}/answers": {"question_id": "q", "selected_option": "A"},
          "PUT /api/attempts/{attemptId}/grades": {"grades": [{"question_id": "q", "marks": 1}]}, "PUT /api/clients/{clientId}": {"name": "Hijacked"},
          "PUT /api/superadmin/subscriptions/{clientId}": {"plan_id": "starter"}}


def test_exams_cross_tenant_and_cross_owner(exams_tenants):
    from tests.exams.delivery.delivery_helpers import mcq

    a, b = exams_tenants
    api = a.app.exams
    q = a.question(**mcq("Q1"))
    test = a.test([q["id"]])
    attempt = a.start(test, a.students[0])
    other_student_same_tenant = a.users.student(a.cid)
    ids = {"testId": test["id"], "attemptId": attempt["id"], "studentId": a.students[0].id,
           "profileId": a.students[0].id, "clientId": a.cid, "requestId": "req-unknown"}
    for key, cls in EXAMS.items():
        method, path = key.split(" ", 1)
        url = re.sub(r"\{([^}]+)\}", lambda m: ids[m.group(1)], path)
        body = BODIES.get(key, {})
        callers = {"tenant": [b.ca, b.students[0]], "owner": [b.ca, b.students[0], other_student_same_tenant],
                   "platform": [a.ca, b.ca]}[cls]
        for who in callers:
            r = api.request(method, url, json=body, headers=who.headers)
            assert_error("exams", r, 403, 404)
    # nothing changed
    r = api.get(f"/api/tests/{test['id']}", headers=a.ca.headers)
    assert r.status == 200 and r.json()["data"]["test_name"] != "Hijacked"
    r = api.get(f"/api/attempts/{attempt['id']}", headers=a.students[0].headers)
    assert r.status == 200 and r.json()["data"]["status"] != "submitted"


def test_internships_learner_objects_are_owner_only(internships_app, intern_users, intern_seed):
    api = internships_app.internships
    admin = intern_users.staff("super_admin")
    owner, intruder = intern_users.student(), intern_users.student()
    dom = make_domain(api, admin)
    enr = enroll_and_pay(api, owner, dom, intern_seed)
    ms = api.get("/api/milestones", headers=owner.headers, query={"enrollmentId": enr["id"]}).json()["milestones"]
    for m in ms:
        assert api.post(f"/api/milestones/{m['id']}/submit", headers=owner.headers,
                        json={"submissionNotes": "Done with this step, repo link"}).status == 200
        assert api.post(f"/api/admin/milestones/{m['id']}/review", headers=admin.headers,
                        json={"remarks": "good"}).status == 200
    r = api.post(f"/api/admin/enrollments/{enr['id']}/approve", headers=admin.headers, json={})
    assert r.status == 200, r.text
    cert = r.json()["certificateId"]
    inv = api.get("/api/invoices/my-invoices", headers=owner.headers).json()["invoices"][0]
    inv_id = re.search(r"/api/invoices/([^/]+)/download-simple", inv["downloadUrl"]).group(1)
    urls = {
        "POST /api/milestones/{id}/submit": f"/api/milestones/{ms[0]['id']}/submit",
        "GET /api/invoices/{id}/download-simple": f"/api/invoices/{inv_id}/download-simple",
        "GET /api/certificates/{certificateId}/download": f"/api/certificates/{cert}/download",
        "POST /api/enrollments/{id}/submit": f"/api/enrollments/{enr['id']}/submit",
        "POST /api/enrollments/{id}/cancel": f"/api/enrollments/{enr['id']}/cancel",
        "GET /api/resources/{enrollmentId}": f"/api/resources/{enr['id']}",
        "GET /api/certificates/{certificateId}/credential": f"/api/certificates/{cert}/credential",
        "GET /api/certificates/{certificateId}/badge.png": f"/api/certificates/{cert}/badge.png",
    }
    assert set(urls) == INTERNSHIPS_OWNER
    for key, url in urls.items():
        method = key.split(" ", 1)[0]
        r = api.request(method, url, json={"submissionNotes": "stolen work here ok", "reason": "x",
                                                     "submissionEmail": "thief@example.com"},
                        headers=intruder.headers)
        assert_error("internships", r, 403, 404)
        assert api.request(method, url, json={}).status == 401 or method == "GET"
    # the owner still sees everything as before
    assert api.get(urls["GET /api/certificates/{certificateId}/download"], headers=owner.headers).status in (200, 302)
    before = {k: v for k, v in enr.items() if k in ("status", "paymentStatus")}
    mine = api.get("/api/enrollments/my-enrollments", headers=owner.headers).json()["enrollments"]
    now = next(e for e in mine if e["id"] == enr["id"])
    assert now["status"] not in ("cancelled", "canceled") and now["paymentStatus"] == before["paymentStatus"]


@pytest.mark.parametrize("key", sorted(k for k in _id_routes("internships") if _internships_class(k) == "staff"))
def test_internships_staff_routes_refuse_students(internships_app, intern_users, key):
    method, path = key.split(" ", 1)
    st = intern_users.student()
    r = internships_app.internships.request(method, _fill(path, "someid"), json={}, headers=st.headers)
    assert_error("internships", r, 403)


# ---------------------------------------------------------------- campaigns (accounts from tools/account.py)
CAMPAIGNS_PUBLIC = {"GET /t/c/{token}", "GET /t/o/{token}", "GET /unsubscribe/{token}", "POST /unsubscribe/{token}",
                    "GET /unsubscribe/{token}/resubscribe", "POST /unsubscribe/{token}/resubscribe"}
CAMPAIGNS_PUBLIC |= {k.replace(" /", " /api/v1/", 1) for k in CAMPAIGNS_PUBLIC}  # the /api/v1 twins


def test_campaigns_cross_account_by_every_id_route(campaigns_app):
    from tools import account

    api = campaigns_app.campaigns
    a = account.create_account("Account A", "pro", "1 A Street")
    b = account.create_account("Account B", "pro", "2 B Street")
    ha, hb = ({"Authorization": f"Bearer {x['api_key']}"} for x in (a, b))

    def made(path, body):
        r = api.post(path, json=body, headers=ha)
        assert r.status == 201, (path, r.text)
        return r.json()["data"]

    sender = made("/senders", {"domain": "isolation-a.example"})
    contact = made("/contacts", {"email": "person@isolation-a.example", "first_name": "P"})
    lst = made("/lists", {"name": "A's list"})
    tpl = made("/templates", {"name": "A's template", "subject": "Hi", "content": "<p>Hi {{email}}</p>"})
    camp = made("/campaigns", {"name": "A's campaign", "subject": "Hi", "content": "<p>Hi</p>",
                               "audience": {"type": "test", "test_emails": ["r@example.net"]},
                               "settings": {"from_email": "news@isolation-a.example", "provider": {"provider": "sandbox"}}})
    ids = {"key_id": a["key"]["key_id"], "job_id": "job-of-a", "bulk_id": "bulk-of-a", "delivery_id": "d-of-a"}
    by_prefix = {"/senders": sender["id"], "/contacts": contact["id"], "/lists": lst["id"], "/templates": tpl["id"],
                 "/campaigns": camp["id"], "/webhooks": "wh-of-a"}
    routes = {f"{r.method} {r.path}" for r in stack_routes("campaigns") if r.params} - CAMPAIGNS_PUBLIC
    assert routes, "no id routes found"
    for key in sorted(routes):
        method, path = key.split(" ", 1)
        own = next((v for pfx, v in by_prefix.items() if path.startswith(pfx + "/")), None)
        url = re.sub(r"\{([^}]+)\}", lambda m, own=own: ids.get(m.group(1)) or own or "x", path)
        r = api.request(method, url, json={}, headers=hb)
        assert_error("campaigns", r, 404)  # another account's object is not found, whatever the verb
    # nothing of A's changed, and B sees none of it
    for path in (f"/contacts/{contact['id']}", f"/lists/{lst['id']}", f"/templates/{tpl['id']}",
                 f"/campaigns/{camp['id']}", f"/senders/{sender['id']}", f"/api-keys/{a['key']['key_id']}"):
        assert api.get(path, headers=ha).status == 200, path
        assert api.get(path, headers=hb).status == 404, path
    assert api.get(f"/campaigns/{camp['id']}", headers=ha).json()["data"]["status"] == "draft"


def stack_routes(service: str):
    from local_runtime import stack

    return [r for r in stack.load_all()[service].routes if not r.path.startswith("/api/v1")]
