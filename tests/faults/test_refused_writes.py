"""Issue 23: the three routes seen to misread a refused write as a lost race.

Each case makes DynamoDB refuse the route's write for a reason other than its condition
(a ``ValidationException`` on a single call, a ``ValidationError`` cancellation reason on a
transaction: both what DynamoDB answers for an item over 400 KB) and checks the answer and the
state read back. On the code before issue 23 these answered 409 or auto-submitted the attempt.
"""
from __future__ import annotations

import contextlib
from typing import Iterator

from tests.exams.delivery.delivery_helpers import mcq

from .inject import inject


@contextlib.contextmanager
def refused_writes() -> Iterator[None]:
    """Every DynamoDB write of the block is refused as DynamoDB refuses an oversized value."""
    with contextlib.ExitStack() as stack:
        for op in ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"):
            stack.enter_context(inject(op, "ValidationException", times=10**6))
        stack.enter_context(inject("TransactWriteItems", "cancel:ValidationError", times=10**6))
        yield


def test_a_refused_answer_save_does_not_submit_the_attempt(tenant):
    app, st = tenant.app, tenant.students[0]
    q = tenant.question(**mcq("Q0", correct="B"))
    t = tenant.test([q["id"]])
    a = tenant.start(t)
    with refused_writes():
        r = app.exams.post(f"/api/attempts/{a['id']}/answers", json={"question_id": q["id"], "student_answer": "B"},
                           headers=st.headers)
    assert r.status in (413, 422), r.text
    assert "error" in r.json() and "Traceback" not in r.text
    cur = app.exams.get(f"/api/attempts/{a['id']}", headers=st.headers).json()["data"]
    assert cur["status"] == "in_progress"
    # and the student can still save and submit
    r = app.exams.post(f"/api/attempts/{a['id']}/answers", json={"question_id": q["id"], "student_answer": "B"},
                       headers=st.headers)
    assert r.status == 200, r.text


def test_a_refused_contact_update_is_not_a_concurrent_change(campaigns_app, auth_headers):
    camp = campaigns_app.campaigns
    r = camp.post("/contacts", json={"email": "refused@example.com", "first_name": "A"}, headers=auth_headers)
    assert r.status in (200, 201), r.text
    cid = r.json()["data"]["id"]
    with refused_writes():
        r = camp.put(f"/contacts/{cid}", json={"first_name": "B"}, headers=auth_headers)
    assert r.status in (413, 422), r.text
    assert r.status != 409
    got = camp.get(f"/contacts/{cid}", headers=auth_headers).json()["data"]
    assert got["first_name"] == "A"


def test_a_refused_question_create_is_not_already_exists(tenant):
    app, ca = tenant.app, tenant.ca
    with refused_writes():
        r = app.exams.post("/api/questions", json=mcq("Big"), headers=ca.headers)
    assert r.status in (413, 422), r.text
    assert r.json().get("error") != "ALREADY_EXISTS"
    listed = app.exams.get("/api/questions", headers=ca.headers).json()
    assert listed["pagination"]["total"] == 0
