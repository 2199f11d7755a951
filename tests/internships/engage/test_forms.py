"""Public forms through the real PublicFormsFunction handler."""
from __future__ import annotations

from .conftest import drain_queue, sandbox_messages


def _emails(template=None):
    from internships.mail import repository

    items = repository.list_emails(status=None, template=template, start=None, end=None, offset=0, limit=100)
    return items


def test_newsletter_twice_one_lead_one_welcome_then_sent_and_tracked(eng):
    c = eng.internships
    r = c.post("/api/newsletter/subscribe", json={"email": "New.Person@Example.com"})
    assert r.status == 200 and r.json()["success"] is True and "alreadySubscribed" not in r.json()
    r = c.post("/api/newsletter/subscribe", json={"email": "new.person@example.com"})
    assert r.status == 200 and r.json() == {"success": True, "alreadySubscribed": True,
                                             "message": "You are already subscribed."}
    welcome = _emails("welcome")
    assert len(welcome) == 1 and welcome[0]["to"] == "new.person@example.com" and welcome[0]["status"] == "pending"
    from internships.forms import repository as frepo

    counters = frepo.table().get("COUNTER#LEADS", "TOTAL")
    assert counters["all"] == 1 and counters["source:newsletter"] == 1
    # the cron job sends it
    r = c.get("/api/cron/process-emails", headers={"Authorization": "Bearer cron-test-secret"})
    assert r.status == 200 and r.json()["sent"] == 1
    msgs = sandbox_messages()
    assert len(msgs) == 1 and msgs[0]["to"] == "new.person@example.com"
    # the pixel records the open once
    eid = welcome[0]["id"]
    for _ in range(2):
        r = c.get("/api/email/track", query={"id": eid})
        assert r.status == 200 and r.headers["content-type"] == "image/gif" and r.body[:6] == b"GIF89a"
    from internships.mail import repository

    e = repository.get_email(eid)
    assert e["opened_at"] and e["open_count"] == 1
    from internships.mail import service

    assert service.stats()["opened"] == 1


def test_track_unknown_or_missing_id_still_returns_gif(eng):
    for q in ({"id": "01UNKNOWNID"}, {}, {"id": "../../etc"}):
        r = eng.internships.get("/api/email/track", query=q)
        assert r.status == 200 and r.headers["content-type"] == "image/gif" and len(r.body) > 20


def test_newsletter_bad_email_is_400(eng):
    for body in ({}, {"email": "nope"}, {"email": 5}, {"email": ""}):
        r = eng.internships.post("/api/newsletter/subscribe", json=body)
        assert r.status == 400 and "email" in r.json()["error"].lower()
    r = eng.internships.post("/api/newsletter/subscribe", body="not json", headers={"content-type": "application/json"})
    assert r.status == 400 and set(r.json()) == {"error"}


def test_lead_saved_and_counselor_emailed_and_rate_limited(eng, fresh_rate_window):
    from internships.forms import repository as frepo

    frepo.table().put({"pk": "SETTINGS", "sk": "SITE", "siteEmail": "counselor@example.org"})
    c = eng.internships
    lead = {"name": "Ravi", "domain": "Web Development", "duration": "2 months", "phone": "+91 98765 43210"}
    r = c.post("/api/leads", json=lead, source_ip="10.1.1.1")
    assert r.status == 200 and r.json()["success"] is True and r.json()["message"]
    notes = _emails("lead_notification")
    assert len(notes) == 1 and notes[0]["to"] == "counselor@example.org" and notes[0]["data"]["leadName"] == "Ravi"
    for _ in range(4):
        assert c.post("/api/leads", json=lead, source_ip="10.1.1.1").status == 200
    r = c.post("/api/leads", json=lead, source_ip="10.1.1.1")
    assert r.status == 429 and r.json()["error"] and "retry-after" in r.headers
    assert c.post("/api/leads", json=lead, source_ip="10.1.1.2").status == 200  # per IP
    assert frepo.table().get("COUNTER#LEADS", "TOTAL")["all"] == 6


def test_lead_missing_or_bad_fields_400(eng):
    c = eng.internships
    good = {"name": "A", "domain": "Web", "duration": "1", "phone": "+1 555 123 4567"}
    for k in ("name", "domain", "duration", "phone"):
        r = c.post("/api/leads", json={**good, k: None}, source_ip=f"10.2.0.{len(k)}")
        assert r.status == 400 and k in r.json()["error"]
    r = c.post("/api/leads", json={**good, "phone": "call me"}, source_ip="10.2.1.1")
    assert r.status == 400 and "phone" in r.json()["error"]


def test_contact_stored_and_notification_queued(eng):
    c = eng.internships
    r = c.post("/api/contact", json={"name": "Sam", "email": "sam@example.com", "subject": "Fees",
                                     "message": "What are the fees?"})
    assert r.status == 200 and r.json()["success"] is True
    notes = _emails("contact_message")
    assert len(notes) == 1 and notes[0]["data"]["senderEmail"] == "sam@example.com"
    drain_queue(c)
    m = sandbox_messages()[0]
    assert "Fees" in m["subject"] and "What are the fees?" in m["html"]
    r = c.post("/api/contact", json={"name": "Sam", "email": "sam@example.com", "subject": "x"})
    assert r.status == 400 and "message" in r.json()["error"]


def test_contact_html_is_escaped(eng):
    c = eng.internships
    c.post("/api/contact", json={"name": "<b>x</b>", "email": "e@example.com", "subject": "s",
                                 "message": "<script>alert(1)</script>"})
    drain_queue(c)
    html = sandbox_messages()[0]["html"]
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_visit_counter_counts_unique_visitors_per_day(eng):
    from internships.forms import repository as frepo
    from lambdakit import clock

    c = eng.internships

    def cookie_of(r):  # the service-issued visitor id (issue 32 item 7)
        return next(x.split(";", 1)[0] for x in r.cookies if x.startswith("visitor-id="))

    r1 = c.post("/api/analytics/visit", json={"path": "/"})
    assert r1.json()["counted"] is True
    v1 = cookie_of(r1)
    assert c.post("/api/analytics/visit", headers={"cookie": v1}).json()["counted"] is False
    r2 = c.post("/api/analytics/visit")
    assert r2.json()["counted"] is True and cookie_of(r2) != v1
    assert c.post("/api/analytics/visit", headers={"cookie": cookie_of(r2)}).json()["counted"] is False
    r3 = c.post("/api/analytics/visit", json={"visitorId": "v2"})  # a body id is ignored: a new visitor
    assert r3.json()["counted"] is True
    day = clock.today()
    assert frepo.table().get("COUNTER#VISITS", f"DAY#{day}")["visitors"] == 3
