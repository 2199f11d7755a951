"""Fuzz (round 3, CI short profile): the super admin's PUT /api/profiles/{own id} changed its own
role; it then lost the maintenance-mode bypass it had just switched on and every later call
answered 503. A principal cannot change its own role or client (as it cannot change its own
account status); nothing is written."""
from __future__ import annotations


def test_super_admin_cannot_change_own_role_or_client(exams_app, exam_users):
    api = exams_app.exams
    c = exam_users.client(name="Acme", plan_id="starter")
    sa = exam_users.super_admin()
    for body in ({"role": "student", "client_id": c["id"]}, {"role": "client_admin", "client_id": c["id"]},
                 {"client_id": c["id"]}):
        r = api.put(f"/api/profiles/{sa.id}", headers=sa.headers, json=body)
        assert r.status == 403, (body, r.text)
        assert r.json()["error"] == "FORBIDDEN" and r.json()["status"] == 403
    # still a super admin: maintenance mode on, the super admin still gets through
    assert api.put("/api/settings", headers=sa.headers, json={"maintenance_mode": True}).status == 200
    assert api.get("/api/clients", headers=sa.headers).status == 200
    assert api.put("/api/settings", headers=sa.headers, json={"maintenance_mode": False}).status == 200
    # other profile fields of one's own profile still change, and a super admin still changes others' roles
    r = api.put(f"/api/profiles/{sa.id}", headers=sa.headers, json={"name": "Root"})
    assert r.status == 200 and r.json()["data"]["role"] == "super_admin"
    st = exam_users.student(c["id"])
    r = api.put(f"/api/profiles/{st.id}", headers=sa.headers, json={"role": "client_admin"})
    assert r.status == 200 and r.json()["data"]["role"] == "client_admin"
