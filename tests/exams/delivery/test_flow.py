"""End to end through the real handlers: bank, test, student + guest attempts, grading, 409s."""
from tests.exams.delivery.delivery_helpers import mcq


def test_student_and_guest_take_a_test_with_negative_marking(tenant):
    app, ca, st = tenant.app, tenant.ca, tenant.students[0]
    qs = [tenant.question(**mcq(f"Q{i}", correct="B", marks=2)) for i in range(4)]
    ms = tenant.question(question_text="Pick", question_type="multi_select", option_a="1", option_b="2",
                         option_c="3", correct_answers=["A", "C"], marks=3)
    t = tenant.test([q["id"] for q in qs] + [ms["id"]], negative_marking=1, allow_guests=True,
                    show_results_after_submission=True)
    assert t["status"] == "published" and len(t["share_code"]) == 8

    a = tenant.start(t)
    assert a["status"] == "in_progress" and a["attempt_token"] is None
    r = app.exams.get(f"/api/attempts/{a['id']}", headers=st.headers)
    assert r.status == 200, r.text
    body = r.json()["data"]
    assert len(body["questions"]) == 5 and "correct_answer" not in body["questions"][0]
    assert body["remaining_seconds"] > 0
    batch = [{"attempt_id": a["id"], "question_id": qs[0]["id"], "selected_option": "B", "marked_for_review": False},
             {"attempt_id": a["id"], "question_id": qs[1]["id"], "selected_option": "A"},
             {"attempt_id": a["id"], "question_id": ms["id"], "selected_option": "C,A"}]
    r = app.exams.post("/api/attempt-answers", json=batch, headers=st.headers)
    assert r.status == 200, r.text
    r = app.exams.post(f"/api/attempts/{a['id']}/answers", json={"question_id": qs[2]["id"], "student_answer": "B"},
                       headers=st.headers)
    assert r.status == 200, r.text
    r = app.exams.post("/api/attempt-answers", json=batch[:1], headers=st.headers)  # idempotent re-save
    assert r.status == 200
    r = app.exams.get(f"/api/attempt-answers/{a['id']}", headers=st.headers)
    assert {x["question_id"]: x["selected_option"] for x in r.json()["data"]} == {
        qs[0]["id"]: "B", qs[1]["id"]: "A", ms["id"]: "A,C", qs[2]["id"]: "B"}
    r = app.exams.post("/api/rpc/submit-attempt", json={"attempt_id": a["id"], "time_taken": 99}, headers=st.headers)
    assert r.status == 200, r.text
    d = r.json()["data"]
    # 2 + 2 + 3 correct, one wrong mcq: -0.25*2
    assert d["score"] == 6.5 and d["total_marks"] == 11 and d["status"] == "submitted"
    r = app.exams.post(f"/api/attempts/{a['id']}/submit", headers=st.headers)
    assert r.status == 409 and r.json()["error"] == "DUPLICATE_ANSWER_SUBMISSION"
    r = app.exams.post("/api/attempt-answers", json=batch[:1], headers=st.headers)
    assert r.status == 409 and r.json()["error"] == "DUPLICATE_ANSWER_SUBMISSION"

    # guest by share code
    r = app.exams.get("/api/tests", query={"share_code": t["share_code"]})
    [found] = r.json()["data"]  # a page of one (the spec's "Paginated tests")
    assert r.status == 200 and found["test_name"] == "Exam" and "question_ids" not in found
    assert app.exams.get("/api/tests", query={"share_code": "ZZZZZZZZ"}).json()["error"] == "INVALID_SHARE_CODE"
    g = tenant.guest(t)
    tok = g["attempt_token"]
    assert tok
    r = app.exams.get(f"/api/attempts/{g['id']}")
    assert r.status == 403 and r.json()["error"] == "ATTEMPT_TOKEN_INVALID"
    r = app.exams.get(f"/api/attempts/{g['id']}", query={"attempt_token": tok + "x"})
    assert r.status == 403 and r.json()["error"] == "ATTEMPT_TOKEN_INVALID"
    r = app.exams.post("/api/attempt-answers", headers={"x-attempt-token": tok},
                       json=[{"attempt_id": g["id"], "question_id": q["id"], "selected_option": "B"} for q in qs])
    assert r.status == 200, r.text
    r = app.exams.post(f"/api/attempts/{g['id']}/submit", query={"attempt_token": tok})
    assert r.status == 200 and r.json()["data"]["score"] == 8
    # the student cannot read the guest's attempt, nor another student's
    assert app.exams.get(f"/api/attempts/{g['id']}", headers=st.headers).status == 403
    # the client admin sees the tenant's attempts
    r = app.exams.get("/api/attempts", query={"test_id": t["id"]}, headers=ca.headers)
    assert r.status == 200 and r.json()["pagination"]["total"] == 2
