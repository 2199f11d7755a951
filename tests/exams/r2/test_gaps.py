"""Round-2 gaps and fuzz regressions: the subscription expiry index behind the SA dashboard,
proctoring events refused after submission, and bugs the fuzzer found."""
from __future__ import annotations

import datetime as dt

import pytest

from tests.exams.delivery.delivery_helpers import Tenant, mcq


@pytest.fixture
def r2_tenant(exams_app, exam_users) -> Tenant:
    client = exam_users.client(name="Acme", plan_id="enterprise")
    ca = exam_users.client_admin(client["id"])
    return Tenant(exams_app, exam_users, client, ca, [exam_users.student(client["id"])])


def _day(offset: int) -> str:
    from lambdakit import clock

    return (clock.now().date() + dt.timedelta(days=offset)).isoformat()


# ---------------------------------------------------------------- fuzz regressions
def test_profiles_unknown_role_filter_is_a_validation_error(exams_app, exam_users):
    """Fuzz: GET /api/profiles?role=<junk> raised KeyError (500)."""
    sa = exam_users.super_admin()
    r = exams_app.exams.get("/api/profiles", headers=sa.headers, query={"role": "&\U000e339a>ª"})
    assert r.status == 400, r.text
    body = r.json()
    assert body["error"] == "VALIDATION_ERROR" and body["details"][0]["field"] == "role"
    r = exams_app.exams.get("/api/profiles", headers=sa.headers, query={"role": "super_admin"})
    assert r.status == 200 and [p["role"] for p in r.json()["data"]] == ["super_admin"]


# ---------------------------------------------------------------- expiry index
def test_dashboard_lists_expiring_subscriptions_from_the_expiry_index(exams_app, exam_users):
    sa = exam_users.super_admin()
    soon = exam_users.client(name="Soon", plan_id="starter")
    later = exam_users.client(name="Later", plan_id="growth")
    never = exam_users.client(name="Never", plan_id="growth")
    exam_users.client(name="Free", plan_id="free")  # free: no expiry, never in the index
    for c, expiry in ((soon, _day(3)), (later, _day(45)), (never, None)):
        r = exams_app.exams.put(f"/api/superadmin/subscriptions/{c['id']}", headers=sa.headers,
                                json={"plan_id": c["plan_id"], "expiry_date": expiry})
        assert r.status == 200, r.text
    # a paid plan created today expires in one month: inside the 30-day window only in short months
    r = exams_app.exams.get("/api/stats", headers=sa.headers)
    assert r.status == 200, r.text
    listed = r.json()["data"]["expiring_subscriptions"]
    assert [e["client_id"] for e in listed] == [soon["id"]]
    assert listed[0] == {"client_id": soon["id"], "name": "Soon", "plan_id": "starter", "status": "active",
                         "expiry_date": _day(3)}
    # moving the expiry moves the index entry; clearing it removes the entry
    r = exams_app.exams.put(f"/api/superadmin/subscriptions/{later['id']}", headers=sa.headers,
                            json={"plan_id": "growth", "expiry_date": _day(1)})
    assert r.status == 200
    r = exams_app.exams.put(f"/api/superadmin/subscriptions/{soon['id']}", headers=sa.headers,
                            json={"plan_id": "starter", "expiry_date": None})
    assert r.status == 200
    listed = exams_app.exams.get("/api/stats/dashboard", headers=sa.headers).json()["data"]["expiring_subscriptions"]
    assert [e["client_id"] for e in listed] == [later["id"]]


def test_expiry_index_read_is_one_query_whatever_the_number_of_clients(exams_app, exam_users):
    """The expiring list costs one Query (+ one BatchGetItem for names), not a read per client."""
    from exams.analytics import service

    sa = exam_users.super_admin()
    for i in range(6):
        c = exam_users.client(name=f"C{i}", plan_id="growth")
        exams_app.exams.put(f"/api/superadmin/subscriptions/{c['id']}", headers=sa.headers,
                            json={"plan_id": "growth", "expiry_date": _day(60 if i % 2 else 5 + i)})
    from lambdakit import aws

    calls: list[str] = []
    clients = {id(c): c for c in (aws.client("dynamodb"),)}
    for c in clients.values():
        c.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name),
                               unique_id="r2-expiry-count")
    try:
        out = service._expiring()
    finally:
        for c in clients.values():
            c.meta.events.unregister("before-call.dynamodb", unique_id="r2-expiry-count")
    assert [e["expiry_date"] for e in out] == [_day(5), _day(7), _day(9)]
    assert calls.count("Query") == 1 and "Scan" not in calls and len(calls) <= 2, calls


# ---------------------------------------------------------------- proctoring after submission
def test_proctoring_event_after_submission_is_refused_and_not_recorded(r2_tenant):
    t = r2_tenant
    st = t.students[0]
    q = t.question(**mcq("Q"))
    test = t.test([q["id"]])
    a = t.start(test)
    r = t.app.exams.post("/api/proctoring/events", headers=st.headers,
                         json={"attempt_id": a["id"], "event_type": "TAB_SWITCH"})
    assert r.status == 201, r.text
    r = t.app.exams.post(f"/api/attempts/{a['id']}/submit", headers=st.headers)
    assert r.status == 200, r.text
    r = t.app.exams.post("/api/proctoring/events", headers=st.headers,
                         json={"attempt_id": a["id"], "event_type": "WINDOW_BLUR"})
    assert r.status == 409, r.text
    assert r.json()["error"] == "STATE_CONFLICT"
    assert r.json()["details"] == {"expected_state": "in_progress", "actual_state": "submitted",
                                   "reason": "attempt_not_in_progress"}
    r = t.app.exams.get("/api/proctoring/events", headers=t.ca.headers, query={"attempt_id": a["id"]})
    assert [e["event_type"] for e in r.json()["data"]] == ["TAB_SWITCH"]
    assert r.json()["pagination"]["total"] == 1
    att = t.app.exams.get(f"/api/attempts/{a['id']}", headers=t.ca.headers).json()["data"]
    assert att["risk_score"] == 1


def test_proctoring_event_after_the_deadline_submits_the_attempt_and_is_refused(r2_tenant):
    from lambdakit import clock

    t = r2_tenant
    st = t.students[0]
    q = t.question(**mcq("Q", correct="B"))
    test = t.test([q["id"]], timer=5)
    a = t.start(test)
    t.app.exams.post("/api/attempt-answers", headers=st.headers,
                     json=[{"attempt_id": a["id"], "question_id": q["id"], "selected_option": "B"}])
    clock.set_offset(5 * 60 + 61)
    r = t.app.exams.post("/api/proctoring/events", headers=st.headers,
                         json={"attempt_id": a["id"], "event_type": "TAB_SWITCH"})
    assert r.status == 409 and r.json()["error"] == "STATE_CONFLICT", r.text
    att = t.app.exams.get(f"/api/attempts/{a['id']}", headers=t.ca.headers).json()["data"]
    assert att["status"] == "submitted" and att["submit_reason"] == "deadline" and att["score"] == 1
    assert att["risk_score"] == 0


def test_event_racing_a_submission_is_refused_by_the_transaction(r2_tenant):
    """The service check passed, but the attempt was submitted before the write: the condition
    in the transaction refuses it and the uploaded evidence is deleted."""
    import base64

    import boto3

    from exams.attempts import submission as attempts
    from exams.proctoring import service
    from lambdakit.errors import ApiError
    from tests.exams.delivery.delivery_helpers import principal_of

    t = r2_tenant
    st = t.students[0]
    q = t.question(**mcq("Q"))
    a = t.start(t.test([q["id"]]))
    real_check = service._ensure_in_progress

    def check_then_submit(att):
        real_check(att)
        assert attempts.auto_submit(att["id"], "manual")

    service._ensure_in_progress = check_then_submit
    try:
        png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
        with pytest.raises(ApiError) as exc:
            service.record_event(principal_of(st), None, {"attempt_id": a["id"], "event_type": "NO_FACE",
                                                          "evidence": base64.b64encode(png).decode()})
    finally:
        service._ensure_in_progress = real_check
    assert exc.value.status == 409 and exc.value.code == "STATE_CONFLICT"
    import os

    bucket = os.environ["EXAMS_EVIDENCE_BUCKET"]
    assert boto3.client("s3", region_name="us-east-1").list_objects_v2(Bucket=bucket).get("KeyCount", 0) == 0
    att = attempts.load(a["id"])
    assert int(att.get("risk_score") or 0) == 0 and int(att.get("event_count") or 0) == 0


def test_store_table_follows_an_endpoint_switch(exams_app):
    """Regression (full-suite run): the delivery repositories cached one ``Table`` whose boto3
    resource outlived ``aws.reset()``, so after a switch to a moto server they still called the
    old endpoint (real AWS) and answered 500."""
    from exams import store
    from lambdakit import aws

    before = store.table().client
    aws.reset()
    after = store.table().client
    assert after is not before and store.table().client is after


def test_profile_update_with_null_fields_is_a_validation_error(exams_app, exam_users):
    """Fuzz: PUT /api/profiles/{id} {"role": null} by a super admin raised KeyError (500)."""
    c = exam_users.client(name="Acme", plan_id="starter")
    st = exam_users.student(c["id"])
    sa = exam_users.super_admin()
    for field in ("role", "name", "active_status"):
        r = exams_app.exams.put(f"/api/profiles/{st.id}", headers=sa.headers, json={field: None})
        assert r.status == 400, (field, r.text)
        assert r.json()["details"][0]["field"] == field
    r = exams_app.exams.put(f"/api/profiles/{st.id}", headers=sa.headers, json={"name": "Renamed"})
    assert r.status == 200 and r.json()["data"]["role"] == "student" and r.json()["data"]["name"] == "Renamed"


def test_client_update_with_null_name_is_refused_and_nothing_is_written(exams_app, exam_users):
    """Probe after the fuzz finding above: PUT /api/clients/{id} {"name": null} stored a nameless
    client, then failed building the response; every later read of that client (and GET
    /api/clients) failed. Now refused before any write."""
    sa = exam_users.super_admin()
    c = exam_users.client(name="Acme", plan_id="starter")
    for body in ({"name": None}, {"active_status": None}):
        r = exams_app.exams.put(f"/api/clients/{c['id']}", headers=sa.headers, json=body)
        assert r.status == 400 and r.json()["details"][0]["field"] == next(iter(body)), r.text
    r = exams_app.exams.get("/api/clients", headers=sa.headers)
    assert r.status == 200 and [x["name"] for x in r.json()["data"]] == ["Acme"]
    r = exams_app.exams.put(f"/api/clients/{c['id']}", headers=sa.headers, json={"address": None, "name": "Acme 2"})
    assert r.status == 200 and r.json()["data"]["name"] == "Acme 2" and r.json()["data"]["address"] is None
