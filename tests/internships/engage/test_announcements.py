"""Announcements and notifications through the real EngagementFunction / AdminEngagementFunction."""
from __future__ import annotations

import datetime as dt

import pytest

from .conftest import drain_queue, sandbox_messages, seed_enrollment, seed_milestone


def _ann(c, admin, **kw):
    body = {"title": "Hello", "content": "Welcome all", **kw}
    r = c.post("/api/admin/announcements", json=body, headers=admin.headers)
    assert r.status == 201, r.text
    return r.json()["announcement"]


def test_enrolled_audience_seen_by_enrolled_only_with_read_marks(eng, intern_users):
    c = eng.internships
    admin = intern_users.staff("admin")
    enrolled, unenrolled = intern_users.student(), intern_users.student()
    seed_enrollment(enrolled)
    a = _ann(c, admin, title="Enrolled only", target_audience="enrolled", priority=5)
    assert a["target_audience"] == "enrolled" and a["status"] == "active" and a["is_active"] is True
    everyone = _ann(c, admin, title="For all")
    r = c.get("/api/announcements", headers=enrolled.headers)
    assert r.status == 200
    titles = [x["title"] for x in r.json()["announcements"]]
    assert titles == ["Enrolled only", "For all"]  # priority first
    assert [x["title"] for x in c.get("/api/announcements", headers=unenrolled.headers).json()["announcements"]] == [
        "For all"]
    assert c.get("/api/announcements/unread-count", headers=enrolled.headers).json()["count"] == 2
    r = c.post(f"/api/announcements/{a['id']}/read", headers=enrolled.headers)
    assert r.status == 200 and r.json()["read"] is True
    c.post(f"/api/announcements/{a['id']}/read", headers=enrolled.headers)  # idempotent
    assert c.get("/api/announcements/unread-count", headers=enrolled.headers).json() == {"success": True, "count": 1}
    listed = {x["id"]: x["isRead"] for x in c.get("/api/announcements", headers=enrolled.headers).json()["announcements"]}
    assert listed == {a["id"]: True, everyone["id"]: False}
    # the unenrolled student cannot mark the enrolled-only announcement
    assert c.post(f"/api/announcements/{a['id']}/read", headers=unenrolled.headers).status == 404
    # notifications: POST with announcementId marks read
    r = c.post("/api/notifications", json={"announcementId": everyone["id"]}, headers=enrolled.headers)
    assert r.status == 200
    assert c.get("/api/announcements/unread-count", headers=enrolled.headers).json()["count"] == 0


@pytest.mark.parametrize("audience,expect", [
    ("all", {"active", "completed", "none", "cancelled"}),
    ("students", {"active", "completed", "none", "cancelled"}),
    ("active", {"active"}),
    ("enrolled", {"active", "completed"}),
    ("inactive", {"completed", "cancelled"}),
    ("unenrolled", {"none", "cancelled"}),
])
def test_audience_rules(eng, intern_users, audience, expect):
    c = eng.internships
    admin = intern_users.staff("admin")
    users = {}
    for st in ("active", "completed", "cancelled", "none"):
        u = intern_users.student()
        if st != "none":
            seed_enrollment(u, status=st)
        users[st] = u
    _ann(c, admin, target_audience=audience)
    seen = {st for st, u in users.items() if c.get("/api/announcements", headers=u.headers).json()["announcements"]}
    assert seen == expect


def test_specific_domains_and_staff(eng, intern_users):
    c = eng.internships
    admin = intern_users.staff("admin")
    web, data = intern_users.student(), intern_users.student()
    seed_enrollment(web, domain_id="dom-web")
    seed_enrollment(data, domain_id="dom-data")
    r = c.post("/api/admin/announcements", json={"title": "t", "content": "c", "target_audience": "specific_domains"},
               headers=admin.headers)
    assert r.status == 400 and "target_domains" in r.json()["error"]
    _ann(c, admin, target_audience="specific_domains", target_domains=["dom-data"])
    assert c.get("/api/announcements", headers=web.headers).json()["announcements"] == []
    assert len(c.get("/api/announcements", headers=data.headers).json()["announcements"]) == 1
    assert c.get("/api/announcements", headers=admin.headers).json()["announcements"] == []


def test_status_is_active_schedule_and_expiry_honoured(eng, intern_users):
    from lambdakit import clock

    c = eng.internships
    admin = intern_users.staff("admin")
    s = intern_users.student()
    now = clock.now().replace(tzinfo=None, microsecond=0)
    fmt = lambda d: d.isoformat()  # noqa: E731 - timestamps without zone
    _ann(c, admin, title="draft", status="draft")
    _ann(c, admin, title="off", is_active=False)
    _ann(c, admin, title="inactive", status="inactive")
    _ann(c, admin, title="future", status="scheduled", scheduled_for=fmt(now + dt.timedelta(hours=2)))
    _ann(c, admin, title="expiring", expires_at=fmt(now + dt.timedelta(hours=1)))
    _ann(c, admin, title="expired", expires_at=fmt(now - dt.timedelta(minutes=1)))
    def titles(user):
        return {x["title"] for x in c.get("/api/announcements", headers=user.headers).json()["announcements"]}

    assert titles(s) == {"expiring"}
    clock.set_offset(3 * 3600)
    assert titles(intern_users.student()) == {"future"}  # (a fresh token: access tokens live 15 minutes)


def test_admin_validation_and_crud(eng, intern_users):
    c = eng.internships
    admin = intern_users.staff("project_admin")
    bad = [{"title": "t", "content": "c", "type": "fatal"}, {"title": "t", "content": "c", "category": "x"},
           {"title": "t", "content": "c", "target_audience": "aliens"}, {"title": "t", "content": "c", "status": "live"},
           {"title": "t", "content": "c", "priority": "high"}, {"title": "t", "content": "c", "is_active": "yes"},
           {"title": "t", "content": "c", "scheduled_for": "tomorrow"}, {"content": "c"}, {"title": "t"},
           {"title": "t", "content": "c", "delivery_channels": {"sms": True}},
           {"title": "t", "content": "c", "status": "scheduled"}]
    for b in bad:
        r = c.post("/api/admin/announcements", json=b, headers=admin.headers)
        assert r.status == 400 and set(r.json()) == {"error"}, b
    a = _ann(c, admin, delivery_channels={"dashboard": True, "email": True, "banner": False, "popup": True},
             scheduled_for="2030-01-01T10:00:00Z", status="scheduled")
    assert a["delivery_channels"] == {"dashboard": True, "email": True, "banner": False, "popup": True}
    assert a["scheduled_for"] == "2030-01-01T10:00:00"
    r = c.put(f"/api/admin/announcements/{a['id']}", json={"title": "Renamed", "priority": 3}, headers=admin.headers)
    assert r.status == 200 and r.json()["announcement"]["title"] == "Renamed" and r.json()["announcement"]["priority"] == 3
    assert c.put(f"/api/admin/announcements/{a['id']}", json={"type": "nope"}, headers=admin.headers).status == 400
    assert c.get(f"/api/admin/announcements/{a['id']}", headers=admin.headers).json()["announcement"]["content"]
    lst = c.get("/api/admin/announcements", headers=admin.headers, query={"limit": 1}).json()
    assert lst["total"] == 1 and lst["pages"] == 1 and len(lst["announcements"]) == 1
    assert c.delete(f"/api/admin/announcements/{a['id']}", headers=admin.headers).status == 200
    assert c.get(f"/api/admin/announcements/{a['id']}", headers=admin.headers).status == 404
    assert c.get("/api/admin/announcements", headers=admin.headers).json()["total"] == 0


def test_auth_rules(eng, intern_users):
    c = eng.internships
    s = intern_users.student()
    reviewer = intern_users.staff("reviewer")
    assert c.get("/api/announcements").status == 401
    assert c.get("/api/notifications").status == 401
    assert c.get("/api/jobs", query={"keyword": "x"}).status == 401
    assert c.get("/api/admin/announcements", headers=s.headers).status == 403
    assert c.get("/api/admin/announcements", headers=reviewer.headers).status == 403
    assert c.get("/api/admin/email-queue", headers=s.headers).status == 403
    pa = intern_users.staff("project_admin")
    assert c.get("/api/admin/email-queue", headers=pa.headers).status == 403  # manage_emails: admin, super_admin
    assert c.get("/api/admin/jobs", headers=pa.headers).status == 200


def test_send_email_fans_out_once_to_the_audience(eng, intern_users):
    c = eng.internships
    admin = intern_users.staff("admin")
    a1, a2, other = intern_users.student(), intern_users.student(), intern_users.student()
    seed_enrollment(a1)
    seed_enrollment(a2)
    seed_enrollment(a2, domain_id="dom-2")  # two enrollments, one email
    ann = _ann(c, admin, title="Big news", target_audience="active", send_email=True)
    drain_queue(c)  # fan-out message, then the emails
    drain_queue(c)
    got = sorted(m["to"] for m in sandbox_messages())
    assert got == sorted([a1.email, a2.email]) and other.email not in got
    assert all(m["subject"] == "Big news" for m in sandbox_messages())
    r = c.get(f"/api/admin/announcements/{ann['id']}", headers=admin.headers).json()["announcement"]
    assert r["email_queued_at"] and r["email_recipients"] == 2
    # the sweep's safety net does not fan out again
    c.get("/api/cron/process-emails", headers={"Authorization": "Bearer cron-test-secret"})
    assert len(sandbox_messages()) == 2


def test_notification_feed(eng, intern_users):
    from lambdakit import clock

    c = eng.internships
    admin = intern_users.staff("admin")
    s = intern_users.student()
    e = seed_enrollment(s, status="completed", domain_name="Data Science")
    clock.set_offset(10)
    seed_milestone(e, 1, status="reviewed", remarks="Nice")
    clock.set_offset(20)
    seed_milestone(e, 2, status="rejected", remarks="Add tests")
    seed_milestone(e, 3, status="pending")
    clock.set_offset(30)
    ann = _ann(c, admin, title="Latest")
    r = c.get("/api/notifications", headers=s.headers)
    assert r.status == 200
    items = r.json()["notifications"]
    assert [i["type"] for i in items] == ["announcement", "milestone", "milestone", "enrollment"]
    assert items[1]["title"] == "Milestone needs changes" and "Add tests" in items[1]["message"]
    assert items[3]["ref"]["status"] == "completed"
    assert r.json()["unreadCount"] == 4
    c.post("/api/notifications", json={"notificationId": items[1]["id"]}, headers=s.headers)
    c.post("/api/notifications", json={"announcementId": ann["id"]}, headers=s.headers)
    items = c.get("/api/notifications", headers=s.headers).json()["notifications"]
    assert [i["type"] for i in items] == ["milestone", "milestone", "enrollment"]  # read announcement leaves the feed
    assert items[0]["read"] is True and items[1]["read"] is False
    assert c.post("/api/notifications", json={}, headers=s.headers).status == 400
    # at most 20, newest first
    for i in range(25):
        _ann(c, admin, title=f"n{i}")
    feed = c.get("/api/notifications", headers=s.headers).json()["notifications"]
    assert len(feed) == 20 and feed[0]["title"] == "n24"


def test_delivery_channels_always_carry_the_four_booleans(eng, intern_users):
    """Spec, Announcement (admin shape): delivery_channels is an object of booleans dashboard, email, banner,
    popup. A POST naming some of them stored and returned only those (round 11); the others now take their
    defaults, and a PUT naming some changes those and keeps the rest."""
    c = eng.internships
    admin = intern_users.staff("admin")
    a = _ann(c, admin, delivery_channels={"email": True})
    assert a["delivery_channels"] == {"dashboard": True, "email": True, "banner": False, "popup": False}
    r = c.put(f"/api/admin/announcements/{a['id']}", json={"delivery_channels": {"popup": True}},
              headers=admin.headers)
    assert r.status == 200, r.text
    assert r.json()["announcement"]["delivery_channels"] == {"dashboard": True, "email": True, "banner": False,
                                                             "popup": True}
    r = c.put(f"/api/admin/announcements/{a['id']}", json={"delivery_channels": {}}, headers=admin.headers)
    assert r.json()["announcement"]["delivery_channels"] == {"dashboard": True, "email": True, "banner": False,
                                                             "popup": True}
    got = c.get(f"/api/admin/announcements/{a['id']}", headers=admin.headers).json()["announcement"]
    assert got["delivery_channels"]["popup"] is True
    s = intern_users.student()
    seen = c.get("/api/announcements", headers=s.headers).json()["announcements"][0]
    assert seen["deliveryChannels"] == {"dashboard": True, "email": True, "banner": False, "popup": True}
