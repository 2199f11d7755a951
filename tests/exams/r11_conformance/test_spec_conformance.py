"""Round 11: what a client written only from the spec (docs/exams-*.md aside) would still get
wrong, each case as the spec states it. Spec lines are quoted in the docstrings."""
from __future__ import annotations

from lambdakit import clock
from tests.exams.delivery.delivery_helpers import mcq


def test_submit_answers_the_time_taken_the_client_supplied(tenant):
    """Attempt field ``time_taken``: "Supplied by client on submit"; POST /api/rpc/submit-attempt
    body {attempt_id, time_taken} → {score, total_marks, time_taken, status}. The server's own
    measurement stays available as ``server_time_taken`` (analytics and the report use it)."""
    app, st = tenant.app, tenant.students[0]
    q = tenant.question(**mcq("Q", correct="A"))
    t = tenant.test([q["id"]])
    a = tenant.start(t)
    try:
        clock.set_offset(90)
        r = app.exams.post("/api/rpc/submit-attempt", json={"attempt_id": a["id"], "time_taken": 120},
                           headers=st.headers)
    finally:
        clock.set_offset(0)
    assert r.status == 200, r.text
    d = r.json()["data"]
    assert d["time_taken"] == 120 and d["status"] == "submitted"
    assert 89 <= d["server_time_taken"] <= 91
    r = app.exams.get(f"/api/attempts/{a['id']}", headers=st.headers).json()["data"]
    assert r["time_taken"] == 120 and 89 <= r["server_time_taken"] <= 91
    rows = app.exams.get("/api/attempts", query={"student_id": st.id}, headers=st.headers).json()["data"]
    assert [x["time_taken"] for x in rows] == [120]
    # the analytics keep the server's measurement (a client's figure cannot skew them)
    from tests.exams.delivery.delivery_helpers import drain_analytics

    drain_analytics(app)
    an = app.exams.get(f"/api/analytics/tests/{t['id']}", headers=tenant.ca.headers).json()["data"]
    assert 89 <= an["average_time_taken"] <= 91

    # the other submit route, body {time_taken}; without one, the server's measurement
    a2, a3 = tenant.start(t), tenant.start(t)
    r = app.exams.post(f"/api/attempts/{a2['id']}/submit", json={"time_taken": 42}, headers=st.headers)
    assert r.status == 200 and r.json()["data"]["time_taken"] == 42
    r = app.exams.post(f"/api/attempts/{a3['id']}/submit", headers=st.headers)
    d = r.json()["data"]
    assert r.status == 200 and d["time_taken"] == d["server_time_taken"] and d["time_taken"] <= 2


def test_guest_joins_with_the_share_code_alone(tenant):
    """Business rule 3: joining by share code needs the 8-character code, a published active test with
    allow_guests, inside the window. The spec's start body names no guest name, so a guest that
    sends only the code (or the code and the test id) starts; a test id of another test is refused."""
    app = tenant.app
    q = tenant.question(**mcq("Q", correct="A"))
    t = tenant.test([q["id"]], allow_guests=1)
    r = app.exams.post("/api/attempts", json={"share_code": t["share_code"]})
    assert r.status == 201, r.text
    d = r.json()["data"]
    assert d["attempt_token"] and d["status"] == "in_progress" and d["test_id"] == t["id"]
    assert d["guest_name"] == "Guest"
    r = app.exams.post("/api/attempts", json={"test_id": t["id"], "share_code": t["share_code"]})
    assert r.status == 201, r.text
    other = tenant.test([q["id"]], allow_guests=1)
    r = app.exams.post("/api/attempts", json={"test_id": other["id"], "share_code": t["share_code"]})
    assert r.status == 400 and r.json()["error"] == "VALIDATION_ERROR"
    assert r.json()["details"][0]["field"] == "test_id"
    r = app.exams.post("/api/attempts", json={"share_code": t["share_code"], "guest_name": "x" * 101})
    assert r.status == 400 and r.json()["details"][0]["field"] == "guest_name"


def test_share_code_lookup_is_a_page_of_tests(tenant):
    """GET /api/tests, query share_code → "Paginated tests" ({data: [...], pagination}); public."""
    app = tenant.app
    q = tenant.question(**mcq("Q", correct="A"))
    t = tenant.test([q["id"]], allow_guests=1)
    r = app.exams.get("/api/tests", query={"share_code": t["share_code"]})
    assert r.status == 200, r.text
    body = r.json()
    assert body["pagination"] == {"page": 1, "limit": 20, "total": 1, "pages": 1}
    [found] = body["data"]
    assert found["id"] == t["id"] and found["share_code"] == t["share_code"] and found["status"] == "published"
    assert "question_ids" not in found and "client_id" not in found
    r = app.exams.get("/api/tests", query={"share_code": t["share_code"].lower(), "page": "2"})
    assert r.status == 200 and r.json()["data"] == [] and r.json()["pagination"]["total"] == 1
    r = app.exams.get("/api/tests", query={"share_code": "ZZZZZZZZ"})
    assert r.status == 404 and r.json()["error"] == "INVALID_SHARE_CODE"


def test_health_and_info_bodies_are_the_spec_fields(exams_app):
    """GET /health → {status, ...timestamp, checks {database, identity, cache}}; GET / → {name,
    version, status}: the fields at the top level (and still in the {data, message} envelope)."""
    body = exams_app.exams.get("/health").json()
    assert body["status"] == "healthy" and set(body["checks"]) == {"database", "identity", "cache"}
    assert body["timestamp"] and body["data"]["status"] == "healthy"
    body = exams_app.exams.get("/").json()
    assert body["name"] and body["version"] and body["status"] == "running"
    assert body["data"]["name"] == body["name"]


def test_no_credential_at_all_is_401_missing_auth_token(tenant):
    """Errors: MISSING_AUTH_TOKEN 401 "No bearer header"; ATTEMPT_TOKEN_INVALID 403 "Guest token
    missing or wrong". A call with neither a bearer token nor a guest credential (share code to
    start, attempt token) to the guest-capable attempt routes is unauthenticated: 401, not a 400
    about guest fields nor the guest-token 403. A guest's attempt without its token stays 403."""
    app, st = tenant.app, tenant.students[0]
    q = tenant.question(**mcq("Q", correct="A"))
    t = tenant.test([q["id"]], allow_guests=1)
    a = tenant.start(t)
    g = tenant.guest(t)

    def code(r):
        return r.status, r.json()["error"]

    missing = (401, "MISSING_AUTH_TOKEN")
    assert code(app.exams.post("/api/attempts", json={"test_id": t["id"], "student_id": st.id})) == missing
    assert code(app.exams.get("/api/attempts", query={"student_id": st.id})) == missing
    for method, path, body in (
            ("get", f"/api/attempts/{a['id']}", None), ("get", f"/api/attempt-answers/{a['id']}", None),
            ("post", "/api/attempt-answers", [{"attempt_id": a["id"], "question_id": q["id"], "selected_option": "A"}]),
            ("post", f"/api/attempts/{a['id']}/answers", {"question_id": q["id"], "student_answer": "A"}),
            ("post", "/api/rpc/submit-attempt", {"attempt_id": a["id"], "time_taken": 5}),
            ("post", f"/api/attempts/{a['id']}/submit", None), ("get", f"/api/attempts/{a['id']}/report", None),
            ("post", "/api/proctoring/events", {"attempt_id": a["id"], "event_type": "TAB_SWITCH"}),
            ("get", "/api/proctoring/events", None)):
        kw = {"json": body} if body is not None else {}
        if path == "/api/proctoring/events" and method == "get":
            kw = {"query": {"attempt_id": a["id"]}}
        assert code(getattr(app.exams, method)(path, **kw)) == missing, (method, path)
    # a wrong attempt token is presented: 403, as for a guest's attempt without (or with a wrong) token
    r = app.exams.get(f"/api/attempts/{a['id']}", query={"attempt_token": "nope"})
    assert code(r) == (403, "ATTEMPT_TOKEN_INVALID")
    assert code(app.exams.get(f"/api/attempts/{g['id']}")) == (403, "ATTEMPT_TOKEN_INVALID")
    assert app.exams.get(f"/api/attempts/{g['id']}", query={"attempt_token": g["attempt_token"]}).status == 200
    # and nothing happened to the student's attempt
    r = app.exams.get(f"/api/attempts/{a['id']}", headers=st.headers)
    assert r.status == 200 and r.json()["data"]["status"] == "in_progress"


def test_package_request_takes_the_spec_package_names(exams_app, exam_users):
    """Plans and packages: Base, Basic, Standard, Professional, Placement Drive (the request body is
    not shown; the service's field is package_type): the display names are accepted as written."""
    client = exam_users.client(name="Buyer", plan_id="free")
    ca = exam_users.client_admin(client["id"])
    for name, kind in (("Placement Drive", "placement_drive"), ("Basic", "basic"), ("standard", "standard"),
                       ("placement-drive", "placement_drive")):
        r = exams_app.exams.post("/api/packages/request", json={"package_type": name}, headers=ca.headers)
        assert r.status == 201, r.text
        assert r.json()["data"]["package_type"] == kind and r.json()["data"]["status"] == "requested"
    r = exams_app.exams.post("/api/packages/request", json={"package_type": "Gold"}, headers=ca.headers)
    assert r.status == 400 and r.json()["details"][0]["field"] == "package_type"


def test_attempt_limit_under_the_name_of_its_error_details(tenant):
    """ATTEMPT_LIMIT_EXCEEDED 400, details allowed_attempts, current_attempts; the test setting's
    name is not shown: `allowed_attempts` (the detail's name) sets the same limit as
    `attempts_allowed`."""
    app, st = tenant.app, tenant.students[0]
    q = tenant.question(**mcq("Q", correct="A"))
    t = tenant.test([q["id"]], allowed_attempts=1)
    assert t["attempts_allowed"] == 1
    a = tenant.start(t)
    assert app.exams.post(f"/api/attempts/{a['id']}/submit", headers=st.headers).status == 200
    r = app.exams.post("/api/attempts", json={"test_id": t["id"], "student_id": st.id}, headers=st.headers)
    assert r.status == 400 and r.json()["error"] == "ATTEMPT_LIMIT_EXCEEDED"
    assert r.json()["details"] == {"allowed_attempts": 1, "current_attempts": 1}
    draft = tenant.test([q["id"]], publish=False)
    r = app.exams.put(f"/api/tests/{draft['id']}", json={"allowed_attempts": 3}, headers=tenant.ca.headers)
    assert r.status == 200 and r.json()["data"]["attempts_allowed"] == 3


def test_answer_batch_of_one_sent_bare(tenant):
    """POST /api/attempt-answers: "body is an array (batch) of attempt answers"; one answer sent as
    a bare object is taken as a batch of one (an object that is not an answer stays a 400)."""
    app, st = tenant.app, tenant.students[0]
    q = tenant.question(**mcq("Q", correct="A"))
    a = tenant.start(tenant.test([q["id"]]))
    r = app.exams.post("/api/attempt-answers", headers=st.headers,
                       json={"attempt_id": a["id"], "question_id": q["id"], "selected_option": "A",
                             "marked_for_review": True})
    assert r.status == 200 and r.json()["data"]["saved"] == 1, r.text
    [saved] = app.exams.get(f"/api/attempt-answers/{a['id']}", headers=st.headers).json()["data"]
    assert saved["selected_option"] == "A" and saved["marked_for_review"] is True
    r = app.exams.post("/api/attempt-answers", headers=st.headers, json={"selected_option": "A"})
    assert r.status == 400 and r.json()["error"] == "VALIDATION_ERROR"


def test_a_test_built_from_its_question_folder(tenant):
    """Tests are built from a question bank; Test.folder_id is the "Question folder", and which
    questions belong to a test is otherwise not shown. A test created with a folder_id and no
    question list takes that folder's questions (the tenant's, in creation order) when published."""
    app, st = tenant.app, tenant.students[0]
    q1 = tenant.question(**mcq("In 1", correct="A"), folder_id="unit-1")
    q2 = tenant.question(**mcq("In 2", correct="B"), folder_id="unit-1")
    tenant.question(**mcq("Elsewhere", correct="A"), folder_id="unit-10")
    tenant.question(**mcq("No folder", correct="A"))
    r = app.exams.post("/api/tests", json={"test_name": "By folder", "timer": 10, "folder_id": "unit-1",
                                           "show_results_after_submission": True},
                       headers=tenant.ca.headers)
    assert r.status == 201, r.text
    t = r.json()["data"]
    r = app.exams.post(f"/api/tests/{t['id']}/publish", headers=tenant.ca.headers)
    assert r.status == 200, r.text
    pub = r.json()["data"]
    assert pub["status"] == "published" and pub["question_count"] == 2
    assert pub["question_ids"] == [q1["id"], q2["id"]]
    a = tenant.start(pub)
    detail = app.exams.get(f"/api/attempts/{a['id']}", headers=st.headers).json()["data"]
    assert {q["id"] for q in detail["questions"]} == {q1["id"], q2["id"]}
    r = app.exams.post("/api/attempt-answers", headers=st.headers,
                       json=[{"attempt_id": a["id"], "question_id": q1["id"], "selected_option": "A"},
                             {"attempt_id": a["id"], "question_id": q2["id"], "selected_option": "B"}])
    assert r.status == 200, r.text
    r = app.exams.post("/api/rpc/submit-attempt", json={"attempt_id": a["id"], "time_taken": 30}, headers=st.headers)
    assert r.status == 200 and r.json()["data"]["score"] == 2 and r.json()["data"]["total_marks"] == 2
    # the same folder later: a clone keeps the questions the test was published with
    r = app.exams.post("/api/rpc/clone-test", json={"test_id": t["id"]}, headers=tenant.ca.headers)
    assert r.status == 201 and r.json()["data"]["question_ids"] == [q1["id"], q2["id"]]
    # an empty folder still cannot be published; explicit question_ids win over the folder
    r = app.exams.post("/api/tests", json={"test_name": "Empty", "timer": 10, "folder_id": "nothing-here"},
                       headers=tenant.ca.headers)
    r = app.exams.post(f"/api/tests/{r.json()['data']['id']}/publish", headers=tenant.ca.headers)
    assert r.status == 400 and r.json()["details"]["reason"] == "no_questions"
    t2 = tenant.test([q2["id"]], folder_id="unit-1")
    assert t2["question_ids"] == [q2["id"]] and t2["question_count"] == 1


def test_saved_answers_and_recorded_events_carry_their_record_fields(tenant):
    """Attempt answer fields: attempt_id, question_id, selected_option, marked_for_review.
    Proctoring event fields: attempt_id, test_id, event_type, evidence (+ severity/score per the
    table): the saved-answer rows and the recorded event name their attempt (and test)."""
    app, st = tenant.app, tenant.students[0]
    q = tenant.question(**mcq("Q", correct="A"))
    t = tenant.test([q["id"]])
    a = tenant.start(t)
    r = app.exams.post("/api/attempt-answers", headers=st.headers,
                       json=[{"attempt_id": a["id"], "question_id": q["id"], "selected_option": "B",
                              "marked_for_review": True}])
    assert r.status == 200, r.text
    [row] = app.exams.get(f"/api/attempt-answers/{a['id']}", headers=st.headers).json()["data"]
    assert {k: row[k] for k in ("attempt_id", "question_id", "selected_option", "marked_for_review")} == {
        "attempt_id": a["id"], "question_id": q["id"], "selected_option": "B", "marked_for_review": True}
    [inline] = app.exams.get(f"/api/attempts/{a['id']}", headers=st.headers).json()["data"]["answers"]
    assert inline["attempt_id"] == a["id"]
    body = {"attempt_id": a["id"], "test_id": t["id"], "event_type": "TAB_SWITCH"}
    r = app.exams.post("/api/proctoring/events", json=body, headers=st.headers)
    d = r.json()["data"]
    assert r.status == 201 and (d["attempt_id"], d["test_id"], d["event_type"], d["severity"], d["score"]) == (
        a["id"], t["id"], "TAB_SWITCH", "LOW", 1) and d["created_at"]
    r = app.exams.post("/api/proctoring/events", json=body, headers=st.headers)  # within 30 s: de-duplicated
    d = r.json()["data"]
    assert r.status == 200 and d["duplicate"] is True and (d["attempt_id"], d["test_id"]) == (a["id"], t["id"])
