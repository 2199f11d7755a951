"""Issue 32 item 1: while a test's results are hidden from the requester, nothing in any attempt
answer, report sheet or chart depends on correctness (score, percentage, pass/fail, per-question
correctness, correct ratio, facility, discrimination, section and band scores).

On main the report's Analytics sheet carried each question's correct ratio and facility index
(from every candidate's answers), and its band table a "Correct" column, for a student and for a
guest alike. The checks here read what a client receives: the JSON of submit, read and list, and
the workbook as openpyxl reads it (every cell of every sheet, every chart series)."""
from __future__ import annotations

import io
from typing import Any

from tests.exams.delivery.delivery_helpers import drain_analytics, mcq

CORRECTNESS_HEADERS = {"Score", "Percentage", "Result", "Correct", "Correct answer", "Marks awarded",
                       "Correct ratio (all candidates)", "Facility index", "Discrimination index",
                       "Correct (this attempt)"}
CORRECTNESS_WORDS = {"correct", "incorrect", "partial", "passed", "not passed", "unanswered"}


def _setup(tenant):
    qs = [tenant.question(**mcq(f"Q{i}", correct="A", difficulty="medium")) for i in range(3)]
    qs.append(tenant.question(question_text="The sky is blue", question_type="true_false", correct_answer="true",
                              marks=1))
    t = tenant.test([q["id"] for q in qs], allow_guests=True, show_results_after_submission=False)
    return qs, t


def _answer_and_submit(app, a: dict, qs: list[dict], picks: list[str], headers=None, query=None) -> dict:
    r = app.exams.post("/api/attempt-answers", headers=headers or {}, query=query, json=[
        {"attempt_id": a["id"], "question_id": q["id"], "selected_option": x, "time_spent": 12}
        for q, x in zip(qs, picks, strict=True)])
    assert r.status == 200, r.text
    r = app.exams.post(f"/api/attempts/{a['id']}/submit", headers=headers or {}, query=query)
    assert r.status == 200, r.text
    return r.json()["data"]


def _walk(value: Any, path: str = ""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, f"{path}[{i}]")
    else:
        yield path, value


def _assert_json_free_of_correctness(data: dict) -> None:
    for key in ("score", "percentage", "passed"):
        assert data.get(key) is None, (key, data)
    assert data.get("result_masked") is True
    assert "results" not in data and "raw_score" not in data and "manual_marks" not in data
    for path, value in _walk(data):
        leaf = path.rsplit(".", 1)[-1]
        assert leaf not in ("marks_awarded", "correct_answer", "correct_answers", "is_correct"), path
        assert not (isinstance(value, str) and value.lower() in CORRECTNESS_WORDS), (path, value)


def _workbook(body: bytes):
    from openpyxl import load_workbook

    return load_workbook(io.BytesIO(body))


def _assert_report_free_of_correctness(body: bytes, picks: list[str]) -> None:
    wb = _workbook(body)
    assert wb.sheetnames == ["Summary", "Detailed Questions", "Analytics"]
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                v = cell.value
                assert not (isinstance(v, str) and v in CORRECTNESS_HEADERS), (ws.title, cell.coordinate, v)
                assert not (isinstance(v, str) and v.lower() in CORRECTNESS_WORDS), (ws.title, cell.coordinate, v)
        for chart in ws._charts:  # every series reads a correctness-free column
            for series in chart.series:
                ref = series.val.numRef.f
                col = ref.split("!")[1].split(":")[0].lstrip("$").split("$")[0]
                header = ws[f"{col}1"].value if ws.title == "Analytics" else None
                title_ref = series.tx.strRef.f if series.tx and series.tx.strRef else ""
                title = ws[title_ref.split("!")[1].replace("$", "")].value if title_ref else header
                assert title in ("Time spent", "Questions"), (ws.title, ref, title)
    summary = {r[0]: r[1] for r in wb["Summary"].iter_rows(values_only=True) if r and r[0]}
    assert summary["Results"] == "Hidden until the results are released"
    assert summary["Total marks"] == 4
    analytics_head = [c.value for c in wb["Analytics"][1]]
    assert analytics_head == ["#", "Question", "Time spent", "Difficulty"]
    detail = list(wb["Detailed Questions"].iter_rows(values_only=True))
    assert detail[0][-1] == "Max marks" and "Correct answer" not in detail[0] and "Status" not in detail[0]
    # the candidate's own answers stay (true/false in the terms the candidate saw)
    chosen = [row[7] for row in detail[1:]]
    assert chosen == picks[:3] + [{"A": "True", "B": "False"}[picks[3]]]


def test_hidden_results_leave_no_correctness_for_students_and_guests(tenant):
    app, ca = tenant.app, tenant.ca
    qs, t = _setup(tenant)
    # other candidates first, folded into the item statistics the report used to show
    for picks in (["A", "A", "A", "A"], ["A", "B", "B", "B"]):
        other = tenant.users.student(tenant.cid)
        _answer_and_submit(app, tenant.start(t, other), qs, picks, headers=other.headers)
    st = tenant.students[0]
    picks = ["A", "B", "A", "A"]
    a = tenant.start(t, st)
    submitted = _answer_and_submit(app, a, qs, picks, headers=st.headers)
    g = tenant.guest(t)
    tok = {"attempt_token": g["attempt_token"]}
    guest_submitted = _answer_and_submit(app, g, qs, ["B", "B", "A", "B"], query=tok)
    assert drain_analytics(app) == 4

    # the student: submit, read, list, report
    _assert_json_free_of_correctness(submitted)
    r = app.exams.get(f"/api/attempts/{a['id']}", headers=st.headers)
    assert r.status == 200, r.text
    _assert_json_free_of_correctness(r.json()["data"])
    r = app.exams.get("/api/attempts", query={"student_id": st.id}, headers=st.headers)
    [row] = [x for x in r.json()["data"] if x["id"] == a["id"]]
    _assert_json_free_of_correctness(row)
    r = app.exams.get(f"/api/attempts/{a['id']}/report", headers=st.headers)
    assert r.status == 200, r.text
    _assert_report_free_of_correctness(r.body, picks)

    # the guest, with its attempt token
    _assert_json_free_of_correctness(guest_submitted)
    r = app.exams.get(f"/api/attempts/{g['id']}", query=tok)
    _assert_json_free_of_correctness(r.json()["data"])
    r = app.exams.get("/api/attempts", query={"attempt_id": g["id"], **tok})
    _assert_json_free_of_correctness(r.json()["data"][0])
    r = app.exams.get(f"/api/attempts/{g['id']}/report", query=tok)
    assert r.status == 200, r.text
    _assert_report_free_of_correctness(r.body, ["B", "B", "A", "B"])

    # the tenant's admin sees correctness all along (the checks above can see it when present)
    r = app.exams.get(f"/api/attempts/{a['id']}/report", headers=ca.headers)
    wb = _workbook(r.body)
    head = [c.value for c in wb["Analytics"][1]]
    assert "Correct ratio (all candidates)" in head and "Facility index" in head
    summary = {x[0]: x[1] for x in wb["Summary"].iter_rows(values_only=True) if x and x[0]}
    assert summary["Score"] == 3 and summary["Result"] in ("passed", "not passed")

    # once the admin publishes the results, the student sees them too
    r = app.exams.put(f"/api/tests/{t['id']}", json={"result_status": "published"}, headers=ca.headers)
    assert r.status == 200, r.text
    r = app.exams.get(f"/api/attempts/{a['id']}", headers=st.headers)
    d = r.json()["data"]
    assert d["score"] == 3 and d["result_masked"] is False
    assert sorted(x["status"] for x in d["results"]) == ["correct", "correct", "correct", "incorrect"]
    wb = _workbook(app.exams.get(f"/api/attempts/{a['id']}/report", headers=st.headers).body)
    detail = list(wb["Detailed Questions"].iter_rows(values_only=True))
    # true/false in the same terms on both sides
    assert (detail[4][7], detail[4][8]) == ("True", "True")
