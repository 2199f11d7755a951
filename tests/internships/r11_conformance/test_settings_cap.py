"""GET /api/admin/settings shows the enrollment cap the service enforces. It showed
maxEnrollmentsPerStudent: 1 while nothing was stored, and enrollment (docs: "unset = no cap") let a student
hold open enrollments in any number of domains: the admin saw a cap that did not exist (round 11)."""
from __future__ import annotations

from tests.internships.journey.helpers import make_domain


def _enroll(c, s, d):
    return c.post("/api/enrollments/create", headers=s.headers, json={"domainId": d["id"], "duration": 1})


def test_settings_show_the_cap_that_enrollment_enforces(internships_app, intern_users):
    c = internships_app.internships
    sa = intern_users.staff("super_admin")
    admin = intern_users.staff("admin")
    d1, d2, d3 = (make_domain(c, admin) for _ in range(3))
    s = intern_users.student()

    shown = c.get("/api/admin/settings", headers=sa.headers).json()["settings"]["maxEnrollmentsPerStudent"]
    assert shown is None  # nothing stored: no cap
    assert _enroll(c, s, d1).status == 200 and _enroll(c, s, d2).status == 200  # and none is enforced

    # another setting saved leaves the cap as it was
    assert c.post("/api/admin/settings", headers=sa.headers, json={"siteName": "Acme"}).status == 200
    assert c.get("/api/admin/settings", headers=sa.headers).json()["settings"]["maxEnrollmentsPerStudent"] is None

    r = c.post("/api/admin/settings", headers=sa.headers, json={"maxEnrollmentsPerStudent": 2})
    assert r.status == 200 and r.json()["settings"]["maxEnrollmentsPerStudent"] == 2
    r = _enroll(c, s, d3)
    assert r.status == 409 and "Maximum" in r.json()["error"]

    r = c.post("/api/admin/settings", headers=sa.headers, json={"maxEnrollmentsPerStudent": None})
    assert r.status == 200 and r.json()["settings"]["maxEnrollmentsPerStudent"] is None
    assert _enroll(c, s, d3).status == 200
