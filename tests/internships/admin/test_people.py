"""Roles table, users, leads, activity log and avatars through the real handlers."""
from __future__ import annotations


def test_roles_table_edit_is_super_admin_only_and_takes_effect(api, intern_users, sa):
    admin = intern_users.staff("admin")
    reviewer = intern_users.staff("reviewer")
    r = api.get("/api/admin/roles", headers=sa.headers)
    assert r.status == 200
    roles = {x["role"]: x for x in r.json()["roles"]}
    assert "manage_users" not in roles["admin"]["permissions"] and roles["reviewer"]["customised"] is False
    assert api.get("/api/admin/roles", headers=admin.headers).status == 403
    assert api.put("/api/admin/roles/reviewer", headers=admin.headers, json={"permissions": []}).status == 403

    # reviewer cannot see leads until granted manage_leads
    assert api.get("/api/admin/leads", headers=reviewer.headers).status == 403
    r = api.put("/api/admin/roles/reviewer", headers=sa.headers,
                json={"permissions": ["review_milestones", "view_students", "manage_leads"]})
    assert r.status == 200 and r.json()["role"]["customised"] is True
    assert api.get("/api/admin/leads", headers=reviewer.headers).status == 200
    assert api.get("/api/admin/analytics/engagement", headers=reviewer.headers).status == 403  # view_analytics dropped

    # manage_users stays super_admin only; unknown permissions refused; students not editable
    r = api.put("/api/admin/roles/admin", headers=sa.headers, json={"permissions": ["manage_users"]})
    assert r.status == 400 and "super_admin" in r.json()["error"]
    assert api.put("/api/admin/roles/admin", headers=sa.headers, json={"permissions": ["fly"]}).status == 400
    assert api.put("/api/admin/roles/student", headers=sa.headers, json={"permissions": []}).status == 400
    assert api.get("/api/admin/roles/wizard", headers=sa.headers).status == 404
    # super_admin keeps manage_users/manage_roles whatever is stored
    r = api.put("/api/admin/roles/super_admin", headers=sa.headers, json={"permissions": ["view_users"]})
    assert {"manage_users", "manage_roles", "view_users"} == set(r.json()["role"]["permissions"])
    assert api.get("/api/admin/activity-logs", headers=sa.headers).status == 403
    assert api.put("/api/admin/roles/super_admin", headers=sa.headers, json={"reset": True}).status == 200
    # optimistic concurrency and reset
    ver = api.get("/api/admin/roles/reviewer", headers=sa.headers).json()["role"]["version"]
    assert api.put("/api/admin/roles/reviewer", headers=sa.headers,
                   json={"permissions": [], "version": ver + 5}).status == 409
    r = api.put("/api/admin/roles/reviewer", headers=sa.headers, json={"reset": True})
    assert r.json()["role"]["customised"] is False
    assert api.get("/api/admin/leads", headers=reviewer.headers).status == 403
    logs = api.get("/api/admin/activity-logs", headers=sa.headers, query={"entity_type": "role"}).json()
    assert logs["total"] >= 4 and {lg["action_type"] for lg in logs["logs"]} >= {"role.update", "role.reset"}


def test_super_admin_creates_reviewer_who_is_denied_users_and_log_shows_it(api, sa, seed, intern_users):
    r = api.post("/api/admin/users", headers=sa.headers,
                 json={"email": "rev@example.com", "password": "Str0ngPass!", "name": "Rita Reviewer",
                       "role": "reviewer"})
    assert r.status == 201, r.text
    rid = r.json()["user"]["id"]
    assert "password_hash" not in r.json()["user"]
    assert api.post("/api/admin/users", headers=sa.headers,
                    json={"email": "rev@example.com", "password": "Str0ngPass!", "name": "X"}).status == 409
    r = api.post("/api/auth/login", json={"email": "rev@example.com", "password": "Str0ngPass!"})
    assert r.status == 200
    token = r.json()["token"]
    rh = {"Authorization": f"Bearer {token}"}
    assert api.get("/api/admin/users", headers=rh).status == 403
    # the reviewer reviews a submitted milestone
    st = intern_users.student(name="Stu Dent")
    e = seed.enrollment(st, seed.domain(), status="active")
    m = seed.milestone(e, 1, status="submitted")
    queue = api.get("/api/admin/submissions/milestones", headers=rh).json()
    assert [x["id"] for x in queue["milestones"]] == [m["id"]]
    r = api.post(f"/api/admin/milestones/{m['id']}/review", headers=rh, json={"remarks": "Well done"})
    assert r.status == 200, r.text
    queue = api.get("/api/admin/submissions/milestones", headers=rh).json()
    assert queue["pendingCount"] == 0 and [(x["id"], x["status"]) for x in queue["milestones"]] == [(m["id"], "reviewed")]
    # the activity log shows both: the creation by the super_admin and the review by the reviewer
    logs = api.get("/api/admin/activity-logs", headers=sa.headers).json()["logs"]
    assert any(lg["action_type"] == "user.create" and lg["entity_id"] == rid and lg["admin_id"] == sa.id
               for lg in logs)
    assert any(lg["entity_type"] == "milestone" and lg["entity_id"] == m["id"] and lg["admin_id"] == rid
               for lg in logs)
    assert api.get("/api/admin/activity-logs", headers=sa.headers, query={"admin_id": rid}).json()["total"] == 1
    assert api.get("/api/admin/activity-logs", headers=rh).status == 403


def test_users_list_search_role_change_and_delete_guards(api, intern_users, sa):
    s1 = intern_users.student(name="Zed Student")
    intern_users.student(name="Amy Student")
    r = api.get("/api/admin/users", headers=sa.headers, query={"role": "student", "limit": 1})
    body = r.json()
    assert body["total"] == 2 and body["pages"] == 2 and len(body["users"]) == 1 and body["limit"] == 1
    r = api.get("/api/admin/users", headers=sa.headers, query={"search": "zed"})
    assert [u["id"] for u in r.json()["users"]] == [s1.id]
    assert api.get("/api/admin/users", headers=sa.headers, query={"limit": 101}).status == 400
    assert api.get("/api/admin/users", headers=sa.headers, query={"page": 0}).status == 400

    r = api.put(f"/api/admin/users/{s1.id}/role", headers=sa.headers, json={"role": "project_admin"})
    assert r.status == 200 and r.json()["user"]["role"] == "project_admin"
    assert api.get("/api/admin/users", headers=sa.headers, query={"role": "student"}).json()["total"] == 1
    assert api.get("/api/admin/users", headers=sa.headers,
                   query={"role": "project_admin"}).json()["total"] == 1
    # the role change takes effect on the next request with the same token
    assert api.get("/api/admin/enrollments", headers=s1.headers).status == 200
    # no self-demotion, no deleting the last super_admin / yourself
    assert api.put(f"/api/admin/users/{sa.id}/role", headers=sa.headers, json={"role": "admin"}).status == 400
    assert api.delete(f"/api/admin/users/{sa.id}", headers=sa.headers).status == 400
    assert api.put(f"/api/admin/users/{s1.id}/role", headers=sa.headers, json={"role": "god"}).status == 400
    r = api.put(f"/api/admin/users/{s1.id}", headers=sa.headers, json={"city": "Pune", "email": "x@y.z"})
    assert r.status == 400
    r = api.put(f"/api/admin/users/{s1.id}", headers=sa.headers, json={"city": "Pune"})
    assert r.json()["user"]["city"] == "Pune"
    assert api.delete(f"/api/admin/users/{s1.id}", headers=sa.headers).status == 200
    assert api.get(f"/api/admin/users/{s1.id}", headers=sa.headers).status == 404
    assert api.get("/api/admin/users", headers=sa.headers, query={"role": "project_admin"}).json()["total"] == 0
    r = api.get("/api/admin/users-list", headers=sa.headers)
    assert set(r.json()["users"][0]) == {"id", "name", "email", "role"}
    r = api.get("/api/admin/students", headers=sa.headers)
    assert r.json()["total"] == 1 and "password_hash" not in r.json()["students"][0]


def test_leads_filters_patch_delete_and_convert(api, seed, sa, internships_app):
    seed.lead(name="Ravi", domain="Data Science", created_at="2025-05-02T09:00:00.000Z", email="ravi@example.com")
    seed.lead(name="Meena", domain="Web Development", created_at="2025-05-10T09:00:00.000Z")
    seed.lead(name="=HYPERLINK()", status="contacted", created_at="2025-06-01T09:00:00.000Z")
    admin = {**sa.headers}
    r = api.get("/api/admin/leads", headers=admin).json()
    assert r["total"] == 3 and [x["name"] for x in r["leads"]][0] == "=HYPERLINK()"
    assert api.get("/api/admin/leads", headers=admin, query={"status": "contacted"}).json()["total"] == 1
    assert api.get("/api/admin/leads", headers=admin, query={"domain": "Data Science"}).json()["total"] == 1
    assert api.get("/api/admin/leads", headers=admin, query={"search": "meena"}).json()["total"] == 1
    r = api.get("/api/admin/leads", headers=admin, query={"date_from": "2025-05-01", "date_to": "2025-05-31"})
    assert r.json()["total"] == 2
    assert api.get("/api/admin/leads", headers=admin, query={"status": "bogus"}).status == 400

    lead_id = api.get("/api/admin/leads", headers=admin, query={"search": "Meena"}).json()["leads"][0]["id"]
    r = api.patch(f"/api/admin/leads/{lead_id}", headers=admin, json={"status": "qualified", "notes": "call back"})
    assert r.status == 200 and r.json()["lead"]["status"] == "qualified" and r.json()["lead"]["notes"] == "call back"
    assert api.get("/api/admin/leads", headers=admin, query={"status": "qualified"}).json()["total"] == 1
    assert api.get("/api/admin/leads", headers=admin, query={"status": "new"}).json()["total"] == 1
    assert api.patch(f"/api/admin/leads/{lead_id}", headers=admin, json={"status": "converted"}).status == 400
    assert api.patch(f"/api/admin/leads/{lead_id}", headers=admin, json={"foo": 1}).status == 400
    # convert needs an email when the lead has none
    assert api.post(f"/api/admin/leads/{lead_id}/convert", headers=admin).status == 400
    r = api.post(f"/api/admin/leads/{lead_id}/convert", headers=admin, json={"email": "meena@example.com"})
    assert r.status == 201, r.text
    body = r.json()
    assert body["user"]["role"] == "student" and body["lead"]["status"] == "converted"
    assert "/reset-password?token=" in body["setPasswordLink"] and body["emailId"]
    assert api.post(f"/api/admin/leads/{lead_id}/convert", headers=admin,
                    json={"email": "other@example.com"}).status == 409
    # the email is queued with the link


    from internships.mail import repository as mail_repo

    email = mail_repo.get_email(body['emailId'])
    assert email["template"] == "password_reset" and email["to"] == "meena@example.com"
    assert email["data"]["resetUrl"] == body["setPasswordLink"]
    assert api.delete(f"/api/admin/leads/{lead_id}", headers=admin).status == 200
    assert api.delete(f"/api/admin/leads/{lead_id}", headers=admin).status == 404
    assert api.get("/api/admin/leads", headers=admin).json()["total"] == 2
    acts = {lg["action_type"] for lg in api.get("/api/admin/activity-logs", headers=admin,
                                                  query={"entity_type": "lead"}).json()["logs"]}
    assert acts == {"lead.update", "lead.convert", "lead.delete"}


def test_fix_google_avatars_rewrites_once(api, intern_users, sa):
    u = intern_users.student(avatar_url="https://lh3.googleusercontent.com/a/abc=s96-c")
    other = intern_users.student(avatar_url="https://cdn.example.com/me.png")
    r = api.post("/api/admin/fix-google-avatars", headers=sa.headers, json={"dryRun": True})
    assert r.json()["matched"] == 1 and r.json()["updated"] == 0
    r = api.post("/api/admin/fix-google-avatars", headers=sa.headers)
    assert r.status == 200 and r.json()["updated"] == 1
    got = api.get(f"/api/admin/users/{u.id}", headers=sa.headers).json()["user"]["avatar_url"]
    assert got == "/api/proxy-image?url=https%3A%2F%2Flh3.googleusercontent.com%2Fa%2Fabc%3Ds96-c"
    assert api.get(f"/api/admin/users/{other.id}", headers=sa.headers).json()["user"]["avatar_url"].startswith("https://cdn")
    assert api.post("/api/admin/fix-google-avatars", headers=sa.headers).json()["updated"] == 0


def test_role_change_and_its_log_entry_are_one_transaction(api, sa):
    """A role change always has exactly one log entry with the effective permissions, and a
    write refused for its version leaves neither the change nor an entry."""
    def role_logs():
        return api.get("/api/admin/activity-logs", headers=sa.headers, query={"entity_type": "role"}).json()

    n0 = role_logs()["total"]
    r = api.put("/api/admin/roles/reviewer", headers=sa.headers, json={"permissions": ["view_users"]})
    assert r.status == 200
    role = r.json()["role"]
    logs = role_logs()
    assert logs["total"] == n0 + 1
    assert logs["logs"][0]["action_type"] == "role.update"
    assert logs["logs"][0]["after"]["permissions"] == role["permissions"]
    # stale version: 409, nothing changed, nothing logged
    r = api.put("/api/admin/roles/reviewer", headers=sa.headers,
                json={"permissions": [], "version": role["version"] + 7})
    assert r.status == 409
    assert api.get("/api/admin/roles/reviewer", headers=sa.headers).json()["role"]["permissions"] == role["permissions"]
    assert role_logs()["total"] == n0 + 1
    # reset: logged with the defaults as the effective permissions
    r = api.put("/api/admin/roles/reviewer", headers=sa.headers, json={"reset": True})
    logs = role_logs()
    assert logs["total"] == n0 + 2 and logs["logs"][0]["action_type"] == "role.reset"
    assert logs["logs"][0]["after"]["permissions"] == r.json()["role"]["permissions"] == r.json()["role"]["defaults"]
