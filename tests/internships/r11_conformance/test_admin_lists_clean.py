"""The admin lists return records as the single-record routes do, without the storage keys (pk, sk,
gsi1pk...). Users, leads, enrollments, invoices, certificates and the milestone review queue carried them
(round 11); the cursor still pages."""
from __future__ import annotations

from tests.internships.journey.helpers import enroll_and_pay, make_domain

LISTS = {"/api/admin/users": "users", "/api/admin/leads": "leads", "/api/admin/enrollments": "enrollments",
         "/api/admin/invoices": "invoices", "/api/admin/certificates": "certificates",
         "/api/admin/submissions/milestones": "milestones", "/api/admin/announcements": "announcements",
         "/api/admin/activity-logs": "logs", "/api/admin/email-queue": "emails"}


def _storage_keys(item: dict) -> set[str]:
    return {k for k in item if k in ("pk", "sk") or k.startswith("gsi")}


def test_admin_lists_carry_no_storage_keys(internships_app, intern_users, intern_seed):
    c = internships_app.internships
    sa = intern_users.staff("super_admin")
    d = make_domain(c, sa)
    for _ in range(2):
        s = intern_users.student()
        e = enroll_and_pay(c, s, d, intern_seed)
        ms = c.get("/api/milestones", headers=s.headers, query={"enrollmentId": e["id"]}).json()["milestones"]
        assert c.post(f"/api/milestones/{ms[0]['id']}/submit", headers=s.headers,
                      json={"submissionNotes": "My first milestone work"}).status == 200
        assert c.post(f"/api/admin/enrollments/{e['id']}/approve", headers=sa.headers, json={"force": True}).status == 200
    assert c.post("/api/leads", json={"name": "Asha", "domain": "Web", "duration": "1 month",
                                      "phone": "9876543210"}).status == 200
    assert c.post("/api/admin/announcements", headers=sa.headers, json={"title": "t", "content": "c"}).status == 201
    for path, key in LISTS.items():
        r = c.get(path, headers=sa.headers)
        assert r.status == 200, (path, r.text)
        items = r.json()[key]
        assert items, path
        assert [_storage_keys(i) for i in items if _storage_keys(i)] == [], path
    # the cursor still pages through a list whose items no longer show their keys
    first = c.get("/api/admin/users", headers=sa.headers, query={"limit": 1}).json()
    assert first["nextCursor"]
    second = c.get("/api/admin/users", headers=sa.headers, query={"limit": 1, "cursor": first["nextCursor"]}).json()
    assert second["users"] and second["users"][0]["id"] != first["users"][0]["id"]
