"""The exams issues' "Done when" scenarios against the running local runtime (``make dev``),
through the HTTP front and the emulator only: issue 6 (tenancy, maintenance, audit), issue 7
(CSV import, test, student + guest attempts, batches, negative marking, duplicate submit,
rollback) and issue 8 (evidence behind a presigned URL, XLSX report)."""
from __future__ import annotations

import base64
import io
import uuid

import requests

from tests.e2e.exams.conftest import PASSWORD, ExamsE2E

TIMEOUT = 30


def call(method: str, url: str, headers: dict | None = None, **kw) -> requests.Response:
    return requests.request(method, url, headers=headers or {}, timeout=TIMEOUT, **kw)


def _uniq(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}@example.com"


def _client_with_admin(rt: ExamsE2E, sa: dict, name: str, plan: str = "growth") -> tuple[str, str, dict]:
    r = call("POST", rt.url("/api/clients"), sa, json={"name": name, "plan_id": plan})
    assert r.status_code == 201, r.text
    cid = r.json()["data"]["id"]
    email = _uniq("admin")
    r = call("POST", rt.url("/api/create-user"), sa, json={"email": email, "password": PASSWORD, "name": f"{name} CA",
                                                            "role": "client_admin", "client_id": cid})
    assert r.status_code == 201, r.text
    return cid, email, rt.sign_in(email)


# ---------------------------------------------------------------- issue 6
def test_issue6_tenancy_maintenance_and_audit(exams_runtime: ExamsE2E):
    rt = exams_runtime
    sa = rt.sa()
    # 1. SA creates two clients with a client admin each
    c1, _, _ = _client_with_admin(rt, sa, "Org One", "starter")
    c2, ca2_email, _ = _client_with_admin(rt, sa, "Org Two", "starter")
    # 2. one CA signs in through the emulator's Cognito and creates a student
    ca1_email = _uniq("ca1")
    r = call("POST", rt.url("/api/create-user"), sa, json={"email": ca1_email, "password": PASSWORD, "name": "CA one",
                                                            "role": "client_admin", "client_id": c1})
    assert r.status_code == 201
    ca1 = rt.sign_in(ca1_email)
    r = call("POST", rt.url("/api/create-user"), ca1, json={"email": _uniq("kid"), "password": PASSWORD,
                                                             "name": "Kid", "role": "student"})
    assert r.status_code == 201, r.text
    assert r.json()["data"]["client_id"] == c1 and r.json()["data"]["role"] == "student"
    student_id = r.json()["data"]["id"]
    assert r.headers["X-Request-Id"] and "X-RateLimit-Remaining" in r.headers
    # 3. the other CA gets 403 on the first client's data
    ca2 = rt.sign_in(ca2_email)
    r = call("GET", rt.url("/api/profiles"), ca2, params={"client_id": c1})
    assert (r.status_code, r.json()["error"]) == (403, "TENANT_MISMATCH")
    r = call("PUT", rt.url(f"/api/profiles/{student_id}"), ca2, json={"name": "Hijack"})
    assert (r.status_code, r.json()["error"]) == (403, "BOLA_VIOLATION")
    r = call("GET", rt.url("/api/profiles"), ca2)
    assert r.status_code == 200 and student_id not in {p["id"] for p in r.json()["data"]}
    # 4. maintenance mode answers that CA with 503, but not SA
    try:
        r = call("PUT", rt.url("/api/settings"), sa, json={"maintenance_mode": True, "announcement_banner": "Back soon"})
        assert r.status_code == 200, r.text
        r = call("GET", rt.url("/api/profiles"), ca2)
        assert r.status_code == 503
        assert r.json()["details"] == {"reason": "maintenance_mode", "message": "Back soon"}
        assert call("GET", rt.url("/api/profiles"), sa).status_code == 200
        assert call("GET", rt.url("/health")).status_code == 200
        assert call("GET", rt.url("/")).json()["data"]["announcement_banner"] == "Back soon"
    finally:
        r = call("PUT", rt.url("/api/settings"), sa, json={"maintenance_mode": False, "announcement_banner": ""})
        assert r.status_code == 200
    assert call("GET", rt.url("/api/profiles"), ca2).status_code == 200
    # 5. audit logs show the sign-ins and the mutations
    logs = []
    for page in range(1, 6):
        r = call("GET", rt.url("/api/superadmin/audit-logs"), sa, params={"limit": 200, "page": page})
        assert r.status_code == 200, r.text
        logs += r.json()["data"]
        if not r.json()["data"] or not r.json()["pagination"].get("pages") or page >= r.json()["pagination"]["pages"]:
            break
    mine = [x for x in logs if x.get("client_id") in (c1, c2)]
    actions = [x["action"] for x in mine]
    assert actions.count("client.create") == 2 and actions.count("user.create") >= 4, actions
    logins = [x for x in logs if x["action"] == "login"]
    assert len(logins) >= 3 and all(x.get("ip_address") for x in logins)
    assert sum(1 for x in logs if x["action"] == "settings.update") >= 2
    r = call("GET", rt.url("/api/superadmin/audit-logs"), sa, params={"action": "client.create"})
    assert r.status_code == 200 and {x["entity_id"] for x in r.json()["data"]} >= {c1, c2}


# ---------------------------------------------------------------- issue 7
def _csv(n: int) -> bytes:
    lines = ["question_text,question_type,option_a,option_b,option_c,option_d,correct_answer,marks,difficulty"]
    for i in range(1, n + 1):
        lines.append(f"Question {i:02d},mcq,Alpha,Beta,Gamma,Delta,A,2,medium")
    return ("\n".join(lines) + "\n").encode()


def _student(rt: ExamsE2E, ca: dict) -> tuple[str, dict]:
    email = _uniq("student")
    r = call("POST", rt.url("/api/create-user"), ca, json={"email": email, "password": PASSWORD, "name": "Stu",
                                                            "role": "student"})
    assert r.status_code == 201, r.text
    return r.json()["data"]["id"], rt.sign_in(email)


def _save_batches(rt: ExamsE2E, attempt_id: str, answers: dict[str, str], headers: dict, size: int = 10) -> None:
    items = list(answers.items())
    for i in range(0, len(items), size):
        batch = [{"attempt_id": attempt_id, "question_id": q, "selected_option": a, "marked_for_review": False}
                 for q, a in items[i:i + size]]
        r = call("POST", rt.url("/api/attempt-answers"), headers, json=batch)
        assert r.status_code == 200, r.text
        assert r.json()["data"]["saved"] == len(batch)


def test_issue7_import_build_take_grade_and_rollback(exams_runtime: ExamsE2E):
    rt = exams_runtime
    sa = rt.sa()
    cid, _, ca = _client_with_admin(rt, sa, "Exam Org", "growth")
    # 1. CA imports 50 questions by CSV (multipart through the front), builds and publishes a test
    r = call("POST", rt.url("/api/questions/import"), ca, files={"file": ("questions.csv", _csv(50), "text/csv")})
    assert r.status_code == 201, r.text
    imp = r.json()["data"]
    assert imp["imported"] == 50 and imp["total_rows"] == 50 and imp["errors"] == []
    r = call("GET", rt.url("/api/questions"), ca, params={"limit": 100})
    assert r.status_code == 200 and r.json()["pagination"]["total"] == 50
    qids = [q["id"] for q in sorted(r.json()["data"], key=lambda q: q["question_text"])]
    assert len(qids) == 50
    r = call("POST", rt.url("/api/tests"), ca, json={
        "test_name": "E2E exam", "timer": 30, "question_ids": qids, "negative_marking": 1,
        "negative_marks_ratio": 0.25, "allow_guests": True, "show_results_after_submission": True, "shuffle": 1,
        "shuffle_options": 1})
    assert r.status_code == 201, r.text
    test = r.json()["data"]
    r = call("POST", rt.url(f"/api/tests/{test['id']}/publish"), ca)
    assert r.status_code == 200 and r.json()["data"]["status"] == "published"
    share = r.json()["data"]["share_code"]
    r = call("GET", rt.url("/api/tests"), params={"share_code": share})
    [found] = r.json()["data"]  # a page of one (the spec's "Paginated tests")
    assert r.status_code == 200 and found["question_count"] == 50 and r.json()["pagination"]["total"] == 1
    assert "question_ids" not in found

    # 2. a student and a guest take it; answers saved in batches survive
    sid, st = _student(rt, ca)
    r = call("POST", rt.url("/api/attempts"), st, json={"test_id": test["id"], "student_id": sid})
    assert r.status_code == 201, r.text
    sa_id = r.json()["data"]["id"]
    student_answers = {q: "B" for q in qids[:40]}  # first pass: everything wrong
    _save_batches(rt, sa_id, student_answers, st)
    student_answers.update({q: "A" for q in qids[:30]})  # second pass corrects 30 of them (upserts)
    _save_batches(rt, sa_id, {q: "A" for q in qids[:30]}, st)
    r = call("GET", rt.url(f"/api/attempts/{sa_id}"), st)
    assert r.status_code == 200
    got = r.json()["data"]
    assert {a["question_id"]: a["selected_option"] for a in got["answers"]} == student_answers
    assert len(got["questions"]) == 50 and all("correct_answer" not in q for q in got["questions"])
    order = [q["id"] for q in got["questions"]]
    assert [q["id"] for q in call("GET", rt.url(f"/api/attempts/{sa_id}"), st).json()["data"]["questions"]] == order

    r = call("POST", rt.url("/api/attempts"), json={"share_code": share, "guest_name": "Guest E2E"})
    assert r.status_code == 201, r.text
    g_id, g_token = r.json()["data"]["id"], r.json()["data"]["attempt_token"]
    guest = {"x-attempt-token": g_token}
    guest_answers = {**{q: "A" for q in qids[:10]}, **{q: "C" for q in qids[10:14]}}
    _save_batches(rt, g_id, guest_answers, guest, size=7)
    r = call("GET", rt.url(f"/api/attempt-answers/{g_id}"), params={"attempt_token": g_token})
    assert r.status_code == 200 and len(r.json()["data"]) == 14
    assert call("GET", rt.url(f"/api/attempt-answers/{g_id}"), {"x-attempt-token": "wrong"}).status_code == 403

    # 3. submit grades correctly with negative marking; the second submit gives 409
    r = call("POST", rt.url("/api/rpc/submit-attempt"), st, json={"attempt_id": sa_id, "time_taken": 120})
    assert r.status_code == 200, r.text
    res = r.json()["data"]
    # 30 right × 2 − 10 wrong × 2 × 0.25 = 55 of 100; 10 unanswered cost nothing
    assert (res["status"], res["score"], res["total_marks"], res["percentage"]) == ("submitted", 55, 100, 55)
    r = call("POST", rt.url(f"/api/attempts/{sa_id}/submit"), st)
    assert (r.status_code, r.json()["error"]) == (409, "DUPLICATE_ANSWER_SUBMISSION")
    r = call("POST", rt.url(f"/api/attempts/{g_id}/submit"), guest)
    assert r.status_code == 200, r.text
    assert r.json()["data"]["score"] == 10 * 2 - 4 * 2 * 0.25  # 18
    r = call("POST", rt.url("/api/rpc/submit-attempt"), guest, json={"attempt_id": g_id})
    assert r.status_code == 409
    r = call("POST", rt.url("/api/attempt-answers"), st,
             json=[{"attempt_id": sa_id, "question_id": qids[45], "selected_option": "A"}])
    assert (r.status_code, r.json()["error"]) == (409, "DUPLICATE_ANSWER_SUBMISSION")

    # 4. a rollback removes the batch (the published test keeps its snapshot)
    r = call("DELETE", rt.url("/api/questions"), ca, params={"import_batch_id": imp["import_batch_id"]})
    assert r.status_code == 200 and r.json()["data"]["deleted"] == 50
    r = call("GET", rt.url("/api/questions"), ca)
    assert r.json()["data"] == [] and r.json()["pagination"]["total"] == 0
    r = call("DELETE", rt.url("/api/questions"), ca, params={"import_batch_id": imp["import_batch_id"]})
    assert (r.status_code, r.json()["error"]) == (409, "STATE_CONFLICT")
    r = call("GET", rt.url(f"/api/attempts/{sa_id}"), ca)
    assert r.status_code == 200 and len(r.json()["data"]["questions"]) == 50 and r.json()["data"]["score"] == 55


# ---------------------------------------------------------------- issue 8
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256))


def test_issue8_evidence_presigned_url_and_xlsx_report(exams_runtime: ExamsE2E):
    from urllib.parse import parse_qs, urlparse

    rt = exams_runtime
    sa = rt.sa()
    cid, _, ca = _client_with_admin(rt, sa, "Proctored Org", "growth")
    r = call("POST", rt.url("/api/questions"), ca, json={"question_text": "=1+1 (formula-looking)", "question_type": "mcq",
                                                           "option_a": "2", "option_b": "3", "correct_answer": "A"})
    assert r.status_code == 201, r.text
    qid = r.json()["data"]["id"]
    r = call("POST", rt.url("/api/tests"), ca, json={"test_name": "Proctored", "timer": 10, "question_ids": [qid],
                                                      "camera_required": True})
    assert r.status_code == 201, r.text
    tid = r.json()["data"]["id"]
    assert call("POST", rt.url(f"/api/tests/{tid}/publish"), ca).status_code == 200
    sid, st = _student(rt, ca)
    r = call("POST", rt.url("/api/attempts"), st, json={"test_id": tid, "student_id": sid})
    aid = r.json()["data"]["id"]

    # a proctoring event with evidence gives a presigned URL that downloads from the emulator
    r = call("POST", rt.url("/api/proctoring/events"), st,
             json={"attempt_id": aid, "test_id": tid, "event_type": "NO_FACE",
                   "evidence": base64.b64encode(PNG).decode()})
    assert r.status_code == 201, r.text
    ev = r.json()["data"]
    assert (ev["severity"], ev["duplicate"], ev["attempt_status"]) == ("MEDIUM", False, "in_progress")
    url = ev["evidence_url"]
    assert url.startswith(rt.endpoint) and parse_qs(urlparse(url).query)["X-Amz-Expires"] == ["900"]
    got = requests.get(url, timeout=TIMEOUT)
    assert got.status_code == 200 and got.content == PNG
    r = call("GET", rt.url("/api/proctoring/events"), ca, params={"attempt_id": aid})
    assert r.status_code == 200 and r.json()["pagination"]["total"] == 1
    assert requests.get(r.json()["data"][0]["evidence_url"], timeout=TIMEOUT).content == PNG
    # the evidence object is private: no anonymous access without the signature
    bare = url.split("?", 1)[0]
    assert requests.get(bare, timeout=TIMEOUT).status_code in (403, 400)

    call("POST", rt.url(f"/api/attempts/{aid}/answers"), st, json={"question_id": qid, "student_answer": "A"})
    assert call("POST", rt.url(f"/api/attempts/{aid}/submit"), st).status_code == 200
    # after submission proctoring events are refused
    r = call("POST", rt.url("/api/proctoring/events"), st, json={"attempt_id": aid, "event_type": "TAB_SWITCH"})
    assert (r.status_code, r.json()["error"]) == (409, "STATE_CONFLICT")

    # the XLSX report downloads through the front with the right MIME type and opens with openpyxl
    r = call("GET", rt.url(f"/api/attempts/{aid}/report"), st)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    assert r.headers["content-disposition"].startswith('attachment; filename="') and ".xlsx" in \
        r.headers["content-disposition"]
    import openpyxl

    wb = openpyxl.load_workbook(io.BytesIO(r.content))
    assert wb.sheetnames == ["Summary", "Detailed Questions", "Analytics"]
    texts = [c for row in wb["Detailed Questions"].iter_rows(values_only=True) for c in row if isinstance(c, str)]
    assert any(t.startswith("'=1+1") for t in texts), texts  # formula injection neutralised
    assert wb["Analytics"]._charts
    other_sid, other = _student(rt, ca)
    r = call("GET", rt.url(f"/api/attempts/{aid}/report"), other)
    assert r.status_code == 403 and r.json()["error"] == "ATTEMPT_NOT_OWNER"
    _ = (cid, other_sid)
