"""Round 11: the flow a client written only from the spec drives, over HTTP against the local
runtime: no field the spec does not name (no question_ids, no guest_name), the spec's bodies read as
the spec gives them (flat /health, paginated share-code lookup, the client's time_taken)."""
from __future__ import annotations

from tests.e2e.exams.conftest import ExamsE2E
from tests.e2e.exams.test_exams_e2e import _client_with_admin, _student, call


def test_spec_only_client_builds_a_test_from_a_folder_and_takes_it(exams_runtime: ExamsE2E):
    rt = exams_runtime
    body = call("GET", rt.url("/health")).json()
    assert body["status"] == "healthy" and set(body["checks"]) == {"database", "identity", "cache"}
    assert set(call("GET", rt.url("/")).json()) >= {"name", "version", "status"}

    _cid, _email, ca = _client_with_admin(rt, rt.sa(), "Spec Client Org")
    answers = {}
    for i, key in enumerate("BAC"):
        r = call("POST", rt.url("/api/questions"), ca, json={
            "question_text": f"Q{i}?", "question_type": "mcq", "option_a": "a", "option_b": "b", "option_c": "c",
            "option_d": "d", "correct_answer": key, "marks": 1, "difficulty": "easy", "folder_id": "spec-folder"})
        assert r.status_code == 201, r.text
        answers[r.json()["data"]["id"]] = key
    r = call("POST", rt.url("/api/tests"), ca, json={
        "test_name": "Spec test", "timer": 30, "shuffle": 0, "allow_review": 1, "negative_marking": 0,
        "folder_id": "spec-folder", "allow_guests": True, "show_results_after_submission": True})
    assert r.status_code == 201, r.text
    test = r.json()["data"]
    r = call("POST", rt.url(f"/api/tests/{test['id']}/publish"), ca)
    assert r.status_code == 200 and r.json()["data"]["status"] == "published", r.text

    # a student: start, answer (batch and single), submit with the client's time_taken
    sid, st = _student(rt, ca)
    r = call("POST", rt.url("/api/attempts"), st, json={"test_id": test["id"], "student_id": sid})
    assert r.status_code == 201 and set(r.json()["data"]) >= {"id", "student_id", "test_id", "status", "attempt_token"}
    aid = r.json()["data"]["id"]
    qids = list(answers)
    r = call("POST", rt.url("/api/attempt-answers"), st, json=[
        {"attempt_id": aid, "question_id": q, "selected_option": answers[q], "marked_for_review": False}
        for q in qids[:2]])
    assert r.status_code == 200, r.text
    r = call("POST", rt.url(f"/api/attempts/{aid}/answers"), st, json={"question_id": qids[2], "student_answer": "D"})
    assert r.status_code == 200, r.text
    r = call("POST", rt.url("/api/rpc/submit-attempt"), st, json={"attempt_id": aid, "time_taken": 120})
    d = r.json()["data"]
    assert r.status_code == 200 and (d["score"], d["total_marks"], d["time_taken"], d["status"]) == (2, 3, 120, "submitted")
    r = call("POST", rt.url(f"/api/attempts/{aid}/submit"), st)
    assert r.status_code == 409 and r.json()["error"] == "DUPLICATE_ANSWER_SUBMISSION"

    # a guest: the public lookup is a page of tests; the share code alone starts an attempt
    r = call("GET", rt.url("/api/tests"), params={"share_code": test["share_code"]})
    assert r.status_code == 200 and r.json()["pagination"]["total"] == 1
    assert r.json()["data"][0]["id"] == test["id"]
    r = call("POST", rt.url("/api/attempts"), json={"test_id": test["id"], "share_code": test["share_code"]})
    assert r.status_code == 201, r.text
    g = r.json()["data"]
    tok = {"x-attempt-token": g["attempt_token"]}
    r = call("POST", rt.url("/api/attempt-answers"), tok, json=[
        {"attempt_id": g["id"], "question_id": q, "selected_option": answers[q], "marked_for_review": False}
        for q in qids])
    assert r.status_code == 200, r.text
    r = call("POST", rt.url(f"/api/attempts/{g['id']}/submit"), tok)
    assert r.status_code == 200 and r.json()["data"]["score"] == 3
    # no credential at all
    r = call("GET", rt.url(f"/api/attempts/{aid}"))
    assert r.status_code == 401 and r.json()["error"] == "MISSING_AUTH_TOKEN"
