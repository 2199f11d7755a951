"""Issue 11 "Done when", end to end through the internships HTTP front of a real local runtime:
the bootstrap super_admin (from dev.json) creates a reviewer; the reviewer reviews a milestone but
gets 403 on users; the activity log shows both. Exports through the front: a small one downloads
as formula-safe CSV, a large one answers a presigned URL that downloads from the emulator."""
from __future__ import annotations

import csv
import io
import uuid

import requests

from .conftest import DIRECT_MAX_ROWS


def _csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))


def test_super_admin_reviewer_milestone_and_activity_log(intern_front):
    f = intern_front
    creds = f.dev["internships"]["super_admin"]
    sa = f.login(creds["email"], creds["password"])
    tag = uuid.uuid4().hex[:6]

    # the super_admin creates a reviewer
    rev_email, rev_pw = f"reviewer-{tag}@example.com", "Review-Passw0rd"
    r = f.call("POST", "/api/admin/users", sa, json={"email": rev_email, "password": rev_pw,
                                                      "name": "Rita Reviewer", "role": "reviewer"})
    assert r.status_code == 201, r.text
    reviewer_id = r.json()["user"]["id"]
    assert r.json()["user"]["role"] == "reviewer" and "password_hash" not in r.json()["user"]
    rev = f.login(rev_email, rev_pw)

    # a domain with a plan, a student enrolled and activated by the admin, one milestone submitted
    r = f.call("POST", "/api/admin/domains", sa, json={
        "name": f"Data Science {tag}", "prices": {"1": 1500},
        "milestones": [{"title": "Setup", "description": "Tools"}, {"title": "Model", "description": "Train"}]})
    assert r.status_code == 201, r.text
    domain_id = r.json()["domain"]["id"]
    r = f.call("POST", "/api/auth/register", json={"name": "Sam Student", "email": f"sam-{tag}@example.com",
                                                    "password": "Student-Passw0rd1", "phone": "+91 98765 43210"})
    assert r.status_code == 200, r.text
    student = r.json()["token"]
    r = f.call("POST", "/api/enrollments/create", student, json={"domainId": domain_id, "duration": 1})
    assert r.status_code in (200, 201), r.text
    eid = r.json()["enrollment"]["id"]
    r = f.call("PUT", f"/api/admin/enrollments/{eid}", sa, json={"status": "active"})
    assert r.status_code == 200 and r.json()["enrollment"]["status"] == "active", r.text
    r = f.call("GET", "/api/milestones", student, params={"enrollmentId": eid})
    assert r.status_code == 200, r.text
    first = r.json()["milestones"][0]
    r = f.call("POST", f"/api/milestones/{first['id']}/submit", student,
               json={"submissionNotes": "Installed the toolchain and wrote the notebook."})
    assert r.status_code == 200, r.text

    # the reviewer reviews it, but may not manage users
    r = f.call("POST", f"/api/admin/milestones/{first['id']}/review", rev,
               json={"action": "approve", "remarks": "Good start"})
    assert r.status_code == 200 and r.json()["milestone"]["status"] == "reviewed", r.text
    r = f.call("GET", "/api/admin/users", rev)
    assert r.status_code == 403 and r.json() == {"error": r.json()["error"]}
    assert f.call("GET", "/api/admin/activity-logs", rev).status_code == 403
    assert f.call("GET", "/api/admin/users").status_code == 401

    # the activity log shows both: the user creation by the super_admin and the review by the reviewer
    r = f.call("GET", "/api/admin/activity-logs", sa, params={"limit": 100})
    assert r.status_code == 200, r.text
    logs = r.json()["logs"]
    created = [x for x in logs if x["action_type"] == "user.create" and x["entity_id"] == reviewer_id]
    reviewed = [x for x in logs if x["admin_id"] == reviewer_id and x["entity_type"] == "milestone"]
    assert len(created) == 1 and created[0]["after"]["role"] == "reviewer" and created[0]["admin_id"] != reviewer_id
    assert len(reviewed) == 1 and reviewed[0]["entity_id"] == first["id"]
    assert reviewed[0]["action_type"] == "milestone_approve" and reviewed[0]["after"]["status"] == "reviewed"
    # the filters of the spec narrow it to the reviewer's own actions
    r = f.call("GET", "/api/admin/activity-logs", sa, params={"admin_id": reviewer_id})
    assert r.status_code == 200 and r.json()["total"] == 1 and r.json()["logs"][0]["entity_id"] == first["id"]


def test_exports_small_direct_and_large_presigned(intern_front):
    f = intern_front
    creds = f.dev["internships"]["super_admin"]
    sa = f.login(creds["email"], creds["password"])
    tag = uuid.uuid4().hex[:6]
    # a staff user whose name a spreadsheet would run as a formula
    r = f.call("POST", "/api/admin/users", sa, json={"email": f"evil-{tag}@example.com", "password": "Evil-Passw0rd",
                                                      "name": '=HYPERLINK("http://x","y")', "role": "admin"})
    assert r.status_code == 201, r.text

    # small: only admins (a role filter) → direct text/csv download, formula neutralised
    r = f.call("POST", "/api/admin/export", sa, json={"entity": "users", "filters": {"role": "admin"}})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv"), r.text
    assert "attachment" in r.headers["content-disposition"]
    rows = _csv(r.content.decode("utf-8"))
    names = [row[rows[0].index("name")] for row in rows[1:]]
    assert '\'=HYPERLINK("http://x","y")' in names and not any(n.startswith("=") for n in names)
    assert "password_hash" not in rows[0] and int(r.headers["x-export-rows"]) == len(rows) - 1

    # large: more rows than the direct cap → streamed to S3, presigned URL served by the emulator
    n_bulk = DIRECT_MAX_ROWS + 1 - (len(rows) - 1)
    for i in range(n_bulk):
        assert f.call("POST", "/api/admin/users", sa, json={
            "email": f"bulk{i}-{tag}@example.com", "password": "Bulk-Passw0rd", "name": f"+SUM(A{i}:A9)",
            "role": "admin"}).status_code == 201
    r = f.call("POST", "/api/admin/export", sa, json={"entity": "users", "filters": {"role": "admin"}})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json"), r.text
    body = r.json()
    assert body["mode"] == "s3" and body["rows"] > DIRECT_MAX_ROWS
    assert body["url"].startswith(f"http://127.0.0.1:{f.rt.emulator_port}/"), body["url"]
    dl = requests.get(body["url"], timeout=30)
    assert dl.status_code == 200, dl.text[:300]
    rows = _csv(dl.content.decode("utf-8"))
    assert len(rows) == body["rows"] + 1
    names = [row[rows[0].index("name")] for row in rows[1:]]
    assert sum(1 for n in names if n.startswith("'+SUM(")) == n_bulk
    assert '\'=HYPERLINK("http://x","y")' in names and not any(n[:1] in "=+-@" for n in names)
    assert "x-amz-signature=" in body["url"].lower() and "x-amz-expires=900" in body["url"].lower()
