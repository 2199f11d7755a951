"""Start checks, deadlines (grace, touch, sweep), sections, concurrency, manual grading, masking."""
from concurrent.futures import ThreadPoolExecutor

from lambdakit import clock
from tests.exams.delivery.delivery_helpers import mcq, principal_of


def test_start_checks(tenant):
    app, st = tenant.app, tenant.students[0]
    q = tenant.question(**mcq("Q"))
    draft = tenant.test([q["id"]], publish=False)
    r = app.exams.post("/api/attempts", json={"test_id": draft["id"], "student_id": st.id}, headers=st.headers)
    assert r.json()["error"] == "TEST_NOT_PUBLISHED"
    t = tenant.test([q["id"]], attempts_allowed=1)
    r = app.exams.post("/api/attempts", json={"share_code": t["share_code"], "guest_name": "G"})
    assert r.status == 403 and r.json()["error"] == "GUEST_ACCESS_NOT_ALLOWED"
    r = app.exams.post("/api/attempts", json={"test_id": t["id"], "student_id": "someone-else"}, headers=st.headers)
    assert r.status == 403
    tenant.start(t)
    r = app.exams.post("/api/attempts", json={"test_id": t["id"], "student_id": st.id}, headers=st.headers)
    assert r.status == 400 and r.json()["error"] == "ATTEMPT_LIMIT_EXCEEDED"
    assert r.json()["details"] == {"allowed_attempts": 1, "current_attempts": 1}
    later = tenant.test([q["id"]], scheduled_start="2999-01-01T00:00:00Z", scheduled_end="2999-01-02T00:00:00Z")
    r = app.exams.post("/api/attempts", json={"test_id": later["id"], "student_id": st.id}, headers=st.headers)
    assert r.status == 400 and r.json()["error"] == "OUTSIDE_SCHEDULED_WINDOW"
    assert set(r.json()["details"]) >= {"scheduled_start", "scheduled_end", "current_time"}
    other = tenant.users.client(name="Other", plan_id="growth")
    ost = tenant.users.student(other["id"])
    r = app.exams.post("/api/attempts", json={"test_id": t["id"], "student_id": ost.id}, headers=ost.headers)
    assert r.status == 403 and r.json()["error"] == "BOLA_VIOLATION"


def test_candidate_capacity(exams_app, exam_users):
    from tests.exams.delivery.delivery_helpers import Tenant

    client = exam_users.client(name="Small", plan_id="growth")
    r = exams_app.exams.put(f"/api/clients/{client['id']}", json={"limits": {"max_students_per_exam": 2}},
                            headers=exam_users.super_admin().headers)
    assert r.status == 200, r.text
    ten = Tenant(exams_app, exam_users, client, exam_users.client_admin(client["id"]), [])
    t = ten.test([ten.question(**mcq("Q"))["id"]], allow_guests=True)
    assert t["max_candidates"] == 2
    # guests take their slot with their first saved answer (docs/exams-delivery.md, "Guests")
    qid = t["question_ids"][0]
    started = {name: ten.guest(t, name) for name in ("G1", "G2", "G3")}  # starting takes no slot
    for name, g in started.items():
        r = exams_app.exams.post(f"/api/attempts/{g['id']}/answers", json={"question_id": qid, "student_answer": "A"},
                                 headers={"x-attempt-token": g["attempt_token"]})
        expected = (200, None) if name != "G3" else (403, "CANDIDATE_CAPACITY_REACHED")
        assert (r.status, r.json().get("error")) == expected, r.text
    r = exams_app.exams.post("/api/attempts", json={"share_code": t["share_code"], "guest_name": "late"})
    assert r.status == 403 and r.json()["error"] == "CANDIDATE_CAPACITY_REACHED"


def test_deadline_grace_touch_and_sweep(tenant):
    app, st = tenant.app, tenant.students[0]
    q = tenant.question(**mcq("Q", correct="A"))
    t = tenant.test([q["id"]], timer=5)
    a1, a2 = tenant.start(t), tenant.start(t)
    save = lambda a: app.exams.post("/api/attempt-answers", headers=st.headers,  # noqa: E731
                                    json=[{"attempt_id": a["id"], "question_id": q["id"], "selected_option": "A"}])
    try:
        clock.set_offset(5 * 60 + 30)  # past the deadline, inside the 60 s grace
        assert save(a1).status == 200 and save(a2).status == 200
        clock.set_offset(5 * 60 + 61)  # past the grace: the next touch submits
        r = save(a1)
        assert r.status == 409 and r.json()["error"] == "DUPLICATE_ANSWER_SUBMISSION"
        r = app.exams.get(f"/api/attempts/{a1['id']}", headers=tenant.ca.headers).json()["data"]
        assert r["status"] == "submitted" and r["submit_reason"] == "deadline" and r["score"] == 1
        assert r["time_taken"] <= 5 * 60 + 60
        out = app.exams.invoke_function("AttemptSweepFunction", {"source": "aws.events"})
        assert out["submitted"] == 1
        r = app.exams.get(f"/api/attempts/{a2['id']}", headers=tenant.ca.headers).json()["data"]
        assert r["status"] == "submitted" and r["score"] == 1
        assert app.exams.invoke_function("AttemptSweepFunction", {})["submitted"] == 0
    finally:
        clock.set_offset(0)


def test_sections_timers_and_navigation_lock(tenant):
    app, st = tenant.app, tenant.students[0]
    q1, q2, q3 = (tenant.question(**mcq(f"Q{i}")) for i in range(3))
    t = tenant.test(None, sections=[
        {"id": "s1", "title": "One", "question_ids": [q1["id"]], "duration_minutes": 5, "lock_navigation": True},
        {"id": "s2", "title": "Two", "question_ids": [q2["id"], q3["id"]], "duration_minutes": 10}], timer=15)
    a = tenant.start(t)
    d = app.exams.get(f"/api/attempts/{a['id']}", headers=st.headers).json()["data"]
    assert [s["id"] for s in d["sections"]] == ["s1", "s2"] and d["remaining_seconds"] > 14 * 60
    ans = lambda qid: app.exams.post(f"/api/attempts/{a['id']}/answers", headers=st.headers,  # noqa: E731
                                     json={"question_id": qid, "student_answer": "A"})
    assert ans(q1["id"]).status == 200
    assert ans(q2["id"]).status == 200  # moving on to section 2 locks section 1
    r = ans(q1["id"])
    assert r.status == 403 and r.json()["error"] == "SECTION_LOCKED"
    assert r.json()["details"]["reason"] == "navigation_locked"


def test_section_time_expiry(tenant):
    app, st = tenant.app, tenant.students[0]
    q1, q2 = (tenant.question(**mcq(f"Q{i}")) for i in range(2))
    t = tenant.test(None, sections=[{"id": "s1", "question_ids": [q1["id"]], "duration_minutes": 5},
                                    {"id": "s2", "question_ids": [q2["id"]], "duration_minutes": 5}], timer=10)
    a = tenant.start(t)
    try:
        clock.set_offset(6 * 60 + 5)
        r = app.exams.post(f"/api/attempts/{a['id']}/answers", headers=st.headers,
                           json={"question_id": q1["id"], "student_answer": "A"})
        assert r.status == 403 and r.json()["details"]["reason"] == "time_expired"
        r = app.exams.post(f"/api/attempts/{a['id']}/answers", headers=st.headers,
                           json={"question_id": q2["id"], "student_answer": "A"})
        assert r.status == 200
    finally:
        clock.set_offset(0)


def test_twenty_parallel_submits_grade_once(tenant, atomic_ddb):
    from exams.attempts import submission as service
    from lambdakit.errors import ApiError

    st = tenant.students[0]
    qs = tenant.questions(3, correct="C")
    t = tenant.test([q["id"] for q in qs])
    a = tenant.start(t)
    tenant.app.exams.post("/api/attempt-answers", headers=st.headers,
                          json=[{"attempt_id": a["id"], "question_id": q["id"], "selected_option": "C"} for q in qs])
    p = principal_of(st)

    def submit(_):
        try:
            service.submit(p, a["id"], None)
            return 200
        except ApiError as exc:
            return (exc.status, exc.code)

    with ThreadPoolExecutor(20) as pool:
        results = list(pool.map(submit, range(20)))
    assert results.count(200) == 1
    assert results.count((409, "DUPLICATE_ANSWER_SUBMISSION")) == 19
    from exams.stats import counters

    assert counters.read(tenant.cid)["attempts_submitted"] == 1


def test_manual_grading_and_result_masking(tenant):
    app, ca, st = tenant.app, tenant.ca, tenant.students[0]
    m = tenant.question(**mcq("M", correct="A", marks=2))
    s = tenant.question(question_text="Explain", question_type="subjective", marks=5)
    t = tenant.test([m["id"], s["id"]])  # results not shown, not released
    a = tenant.start(t)
    app.exams.post("/api/attempt-answers", headers=st.headers, json=[
        {"attempt_id": a["id"], "question_id": m["id"], "selected_option": "A"},
        {"attempt_id": a["id"], "question_id": s["id"], "selected_option": "Because."}])
    r = app.exams.post(f"/api/attempts/{a['id']}/submit", headers=st.headers)
    d = r.json()["data"]
    assert r.status == 200 and d["score"] is None and d["result_masked"] is True
    r = app.exams.get(f"/api/attempts/{a['id']}", headers=ca.headers).json()["data"]
    assert r["score"] == 2 and r["pending_manual_grading"] == 1
    r = app.exams.put(f"/api/attempts/{a['id']}/grades", json={"grades": [{"question_id": s["id"], "marks": 6}]},
                      headers=ca.headers)
    assert r.status == 400
    r = app.exams.put(f"/api/attempts/{a['id']}/grades", json={"grades": [{"question_id": s["id"], "marks": 4}]},
                      headers=ca.headers)
    assert r.status == 200 and r.json()["data"]["score"] == 6 and r.json()["data"]["pending_manual_grading"] == 0
    assert app.exams.put(f"/api/attempts/{a['id']}/grades", headers=st.headers,
                         json={"grades": [{"question_id": s["id"], "marks": 5}]}).status == 403
    assert app.exams.get(f"/api/attempts/{a['id']}", headers=st.headers).json()["data"]["score"] is None
    app.exams.put(f"/api/tests/{t['id']}", json={"result_status": "published"}, headers=ca.headers)
    d = app.exams.get(f"/api/attempts/{a['id']}", headers=st.headers).json()["data"]
    assert d["score"] == 6 and d["result_masked"] is False
