"""Issue #21 (cold first request): reads a request does not repeat or makes together.

The user item authentication reads (one BatchGetItem with the role's permission override) is the one
``/api/auth/me`` and ``GET /api/profile`` show, not read a second time; the review queue reads its
counters and its page's enrollments in one BatchGetItem; an email is rendered from one BatchGetItem
of its template override and the site settings."""
from __future__ import annotations

from bench.callcount import count_calls
from tests.internships.r4_gaps.test_review_queue import Q, _world


def _dynamodb(cc) -> dict[str, int]:
    return {k: v for k, v in cc.calls.items() if k.startswith("dynamodb.")}


def test_me_and_profile_show_the_user_authentication_read(gaps, intern_users):
    c = gaps.internships
    s = intern_users.student(name="Asha Rao")
    bodies = {}
    for path, key in (("/api/auth/me", "user"), ("/api/profile", "profile")):
        with count_calls() as cc:
            r = c.get(path, headers=s.headers)
        assert r.status == 200, r.text
        assert _dynamodb(cc) == {"dynamodb.BatchGetItem": 1}
        bodies[path] = r.json()[key]
    me = bodies["/api/auth/me"]
    assert me == bodies["/api/profile"] and me["name"] == "Asha Rao" and me["has_password"] is True
    assert not {"pk", "sk", "password_hash"} & set(me) and not any(k.startswith("gsi") for k in me)
    assert c.put("/api/profile", headers=s.headers, json={"name": "Asha R"}).status == 200
    assert c.get("/api/auth/me", headers=s.headers).json()["user"]["name"] == "Asha R"
    assert c.get("/api/profile", headers=s.headers).json()["profile"]["name"] == "Asha R"


def test_review_queue_reads_counters_and_enrollments_together(gaps, intern_users, intern_seed):
    c, admin, ids = _world(gaps, intern_users, intern_seed)
    with count_calls() as cc:
        r = c.get(Q, headers=admin.headers)
    assert r.status == 200, r.text
    # authentication's BatchGetItem (the counters with it, issue #21) and the page's Query: the names
    # come from the milestones' copies of their enrollment's (test_review_queue.py)
    assert _dynamodb(cc) == {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 1}
    body = r.json()
    assert body["counts"] == {"submitted": 1, "reviewed": 1, "rejected": 1} and body["pendingCount"] == 1
    assert {m["student_name"] for m in body["milestones"]} == {"Asha Rao", "Bala Iyer"}


def test_an_email_renders_from_one_read_of_template_and_site(gaps):
    from internships.mail import service
    from internships.store import table

    email = {"id": "e-1", "template": "submission", "data": {"name": "Asha", "domainName": "Data"}}
    with count_calls() as cc:
        subject, html = service.render_email(email)
    assert _dynamodb(cc) == {"dynamodb.BatchGetItem": 1}
    assert subject == "We received your submission for Data" and "Internship Programme" in html
    table().put({"pk": "EMAILTPL#submission", "sk": "TEMPLATE", "subject": "Got it, {{name}}", "html": "<p>ok</p>"})
    table().put({"pk": "SETTINGS", "sk": "SITE", "siteName": "Acme Interns"})
    with count_calls() as cc:
        subject, html = service.render_email(email)
    assert _dynamodb(cc) == {"dynamodb.BatchGetItem": 1}
    assert subject == "Got it, Asha" and "Acme Interns" in html and "<p>ok</p>" in html
