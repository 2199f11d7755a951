"""Issue 23: the three routes seen to misread a refused write as a lost race.

Each test makes DynamoDB refuse THE ROUTE'S OWN WRITE, and only it, for a reason other than its
condition: the write (single call or transaction) that touches the route's item is answered
as DynamoDB answers an item over 400 KB (``ValidationException`` on a single call, a
``ValidationError`` cancellation reason on that item's operation of a transaction, ``None`` on
the others). Every other write of the request (rate-limit windows, audit entries, counters,
API-key lookups) goes through, so the request reaches the route's write and its error handling.
On the code before issue 23 (``6fbd55e^``) these tests fail: the save auto-submitted the
attempt, the contact update answered 409 and the question create 409 ``ALREADY_EXISTS``.
"""
from __future__ import annotations

from tests.exams.delivery.delivery_helpers import mcq

from .inject import inject


def refused(item):
    """Every write of the block that touches an item ``item(table, pk, sk)`` accepts is refused
    as DynamoDB refuses an oversized value; nothing else is."""
    return inject("write", "refused", times=10**6, item=item)


def test_a_refused_answer_save_does_not_submit_the_attempt(tenant):
    app, st = tenant.app, tenant.students[0]
    q = tenant.question(**mcq("Q0", correct="B"))
    t = tenant.test([q["id"]])
    a = tenant.start(t)
    with refused(lambda table, pk, sk: pk == f"ATTEMPT#{a['id']}" and sk.startswith("A#ANS#")) as f:
        r = app.exams.post(f"/api/attempts/{a['id']}/answers", json={"question_id": q["id"], "student_answer": "B"},
                           headers=st.headers)
    assert f.fired >= 1, "the answer write was never reached"
    if f.reasons is not None:  # a transaction: the reason is on the answer's operation only
        assert f.reasons.count("ValidationError") == 1 and len(f.reasons) >= 2, f.reasons
    assert r.status in (413, 422), r.text
    assert "error" in r.json() and "Traceback" not in r.text
    cur = app.exams.get(f"/api/attempts/{a['id']}", headers=st.headers).json()["data"]
    assert cur["status"] == "in_progress", cur["status"]
    # and the student can still save and submit
    r = app.exams.post(f"/api/attempts/{a['id']}/answers", json={"question_id": q["id"], "student_answer": "B"},
                       headers=st.headers)
    assert r.status == 200, r.text


def test_a_refused_contact_update_is_not_a_concurrent_change(campaigns_app, auth_headers):
    camp = campaigns_app.campaigns
    r = camp.post("/contacts", json={"email": "refused@example.com", "first_name": "A"}, headers=auth_headers)
    assert r.status in (200, 201), r.text
    cid = r.json()["data"]["id"]
    with refused(lambda table, pk, sk: pk.endswith(f"#C#{cid}") and sk == "C") as f:
        r = camp.put(f"/contacts/{cid}", json={"first_name": "B"}, headers=auth_headers)
    assert f.fired >= 1, "the contact write was never reached"
    assert r.status != 409, r.text
    assert r.status in (413, 422), r.text
    got = camp.get(f"/contacts/{cid}", headers=auth_headers).json()["data"]
    assert got["first_name"] == "A"


def test_a_refused_question_create_is_not_already_exists(tenant):
    app, ca = tenant.app, tenant.ca
    with refused(lambda table, pk, sk: pk.startswith("QUESTION#") and sk == "META") as f:
        r = app.exams.post("/api/questions", json=mcq("Big"), headers=ca.headers)
    assert f.fired >= 1, "the question write was never reached"
    assert r.json().get("error") != "ALREADY_EXISTS", r.text
    assert r.status in (413, 422), r.text
    listed = app.exams.get("/api/questions", headers=ca.headers).json()
    assert listed["pagination"]["total"] == 0
