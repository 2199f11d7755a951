"""Question bank + CSV import/rollback, test configuration rules, publish/archive/clone/delete."""
from tests.exams.delivery.delivery_helpers import mcq

HEADER = "question_text,question_type,option_a,option_b,option_c,option_d,correct_answer,marks,difficulty\n"


def _multipart(csv_text: str, **fields) -> tuple[bytes, str]:
    b = "XbOuNdArY"
    parts = [f'--{b}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n' for k, v in fields.items()]
    parts.append(f'--{b}\r\nContent-Disposition: form-data; name="file"; filename="q.csv"\r\n'
                 f'Content-Type: text/csv\r\n\r\n{csv_text}\r\n--{b}--\r\n')
    return "".join(parts).encode(), f"multipart/form-data; boundary={b}"


def test_csv_import_all_or_nothing_and_rollback(tenant):
    app, ca = tenant.app, tenant.ca
    rows = "".join(f"Question {i},mcq,a,b,c,d,{'ABCD'[i % 4]},1,easy\n" for i in range(50))
    body, ctype = _multipart(HEADER + rows, folder_id="f1")
    r = app.exams.post("/api/questions/import", body=body, headers={**ca.headers, "content-type": ctype})
    assert r.status == 201, r.text
    batch = r.json()["data"]["import_batch_id"]
    assert r.json()["data"]["imported"] == 50
    r = app.exams.get("/api/questions", query={"folder_id": "f1", "limit": 20}, headers=ca.headers)
    assert r.json()["pagination"]["total"] == 50 and len(r.json()["data"]) == 20
    assert r.json()["data"][0]["import_batch_id"] == batch
    # a bad file imports nothing and reports every bad row
    bad = HEADER + "Good,mcq,a,b,c,d,A,1,easy\nNo key,mcq,a,b,c,d,,1,easy\nBad type,essay,a,b,,,A,1,easy\n"
    body, ctype = _multipart(bad, folder_id="f2")
    r = app.exams.post("/api/questions/import", body=body, headers={**ca.headers, "content-type": ctype})
    assert r.status == 400 and r.json()["error"] == "CSV_IMPORT_VALIDATION_ERROR"
    det = r.json()["details"]
    assert [d["line"] for d in det] == [3, 4] and det[0]["error"] == "correct_answer is required"
    assert det[1]["row_data"]["question_text"] == "Bad type"
    assert app.exams.get("/api/questions", query={"folder_id": "f2"}, headers=ca.headers).json()["pagination"][
        "total"] == 0
    # another tenant cannot roll it back; the owner can, exactly once
    other = tenant.users.client(name="Other", plan_id="growth")
    oca = tenant.users.client_admin(other["id"])
    r = app.exams.delete("/api/questions", query={"import_batch_id": batch}, headers=oca.headers)
    assert r.status == 403 and r.json()["error"] == "BOLA_VIOLATION"
    kept = tenant.question(**mcq("manual", folder_id="f1"))
    r = app.exams.delete("/api/questions", query={"import_batch_id": batch}, headers=ca.headers)
    assert r.status == 200 and r.json()["data"]["deleted"] == 50
    r = app.exams.get("/api/questions", query={"folder_id": "f1"}, headers=ca.headers)
    assert r.json()["pagination"]["total"] == 1 and [q["id"] for q in r.json()["data"]] == [kept["id"]]
    r = app.exams.delete("/api/questions", query={"import_batch_id": batch}, headers=ca.headers)
    assert r.status == 409


def test_csv_import_respects_plan_question_limit(exams_app, exam_users):
    client = exam_users.client(name="Free", plan_id="free")  # 50 questions per exam
    ca = exam_users.client_admin(client["id"])
    rows = "".join(f"Q{i},mcq,a,b,c,d,A,1,easy\n" for i in range(51))
    body, ctype = _multipart(HEADER + rows)
    r = exams_app.exams.post("/api/questions/import", body=body, headers={**ca.headers, "content-type": ctype})
    assert r.status in (400, 429) and r.json()["error"] in ("QUOTA_EXCEEDED", "INSUFFICIENT_PACKAGE_CAPACITY")


def test_question_validation(tenant):
    r = tenant.app.exams.post("/api/questions", json={"question_text": "x", "question_type": "essay"},
                              headers=tenant.ca.headers)
    assert r.status == 400 and r.json()["error"] == "INVALID_QUESTION_TYPE"
    r = tenant.app.exams.post("/api/questions", json=mcq("x", correct=None), headers=tenant.ca.headers)
    assert r.status == 400 and r.json()["error"] == "VALIDATION_ERROR"
    r = tenant.app.exams.post("/api/questions", json=mcq("x"), headers=tenant.students[0].headers)
    assert r.status == 403


def test_test_rules_publish_readonly_archive_clone_delete(tenant):
    app, ca = tenant.app, tenant.ca
    q = tenant.question(**mcq("Q"))
    r = app.exams.post("/api/tests", json={"test_name": "T", "timer": 4}, headers=ca.headers)
    assert r.status == 400 and r.json()["error"] == "INVALID_TEST_CONFIGURATION"
    assert r.json()["details"]["reason"] == "timer_below_minimum"
    t = tenant.test([q["id"]], publish=False)
    assert t["status"] == "draft" and len(t["share_code"]) == 8 and t["result_status"] == "pending"
    r = app.exams.put(f"/api/tests/{t['id']}", json={"test_name": "Renamed", "timer": 45}, headers=ca.headers)
    assert r.status == 200 and r.json()["data"]["test_name"] == "Renamed"
    r = app.exams.post(f"/api/tests/{t['id']}/publish", headers=ca.headers)
    assert r.status == 200 and r.json()["data"]["status"] == "published"
    r = app.exams.post(f"/api/tests/{t['id']}/publish", headers=ca.headers)
    assert r.status == 409 and r.json()["error"] == "STATE_CONFLICT"
    assert r.json()["details"] == {"expected_state": "draft", "actual_state": "published"}
    r = app.exams.put(f"/api/tests/{t['id']}", json={"timer": 60}, headers=ca.headers)
    assert r.status == 400 and r.json()["error"] == "TEST_READ_ONLY"
    r = app.exams.put(f"/api/tests/{t['id']}", json={"result_status": "published"}, headers=ca.headers)
    assert r.status == 200 and r.json()["data"]["result_status"] == "published"
    r = app.exams.delete(f"/api/tests/{t['id']}", headers=ca.headers)
    assert r.status == 409
    r = app.exams.post("/api/rpc/clone-test", json={"test_id": t["id"]}, headers=ca.headers)
    assert r.status == 201
    c = r.json()["data"]
    assert c["status"] == "draft" and c["share_code"] != t["share_code"] and c["question_ids"] == [q["id"]]
    r = app.exams.put(f"/api/tests/{t['id']}", json={"status": "archived"}, headers=ca.headers)
    assert r.status == 200 and r.json()["data"]["status"] == "archived"
    r = app.exams.get("/api/tests", query={"client_id": tenant.cid, "status": "archived"}, headers=ca.headers)
    assert [x["id"] for x in r.json()["data"]] == [t["id"]] and r.json()["pagination"]["total"] == 1
    r = app.exams.delete(f"/api/tests/{t['id']}", headers=ca.headers)
    assert r.status == 200
    assert app.exams.get(f"/api/tests/{t['id']}", headers=ca.headers).status == 410
    assert app.exams.get("/api/tests", query={"share_code": t["share_code"]}).status == 404
    r = app.exams.get("/api/tests", query={"client_id": tenant.cid}, headers=ca.headers)
    assert r.json()["pagination"]["total"] == 1
    # sections: mixed timing is rejected
    r = app.exams.post("/api/tests", headers=ca.headers, json={"test_name": "S", "timer": 10, "sections": [
        {"title": "A", "question_ids": [q["id"]], "duration_minutes": 5}, {"title": "B", "question_ids": []}]})
    assert r.status == 400 and r.json()["details"]["reason"] == "mixed_section_timing"
