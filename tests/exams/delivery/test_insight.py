"""Analytics worker → item statistics (matches the direct computation), student analytics,
dashboards, and the XLSX report (three sheets, chart, neutralised formulas, access rules)."""
import io
import math
import os

import pytest

from tests.exams.delivery.delivery_helpers import drain_analytics, mcq


def test_item_analysis_dashboards_and_report(tenant):
    app, ca = tenant.app, tenant.ca
    students = [tenant.students[0]] + [tenant.users.student(tenant.cid) for _ in range(3)]
    qs = [tenant.question(**mcq("=HYPERLINK(\"http://evil\")" if i == 0 else f"Q{i}", correct="A")) for i in range(3)]
    t = tenant.test([q["id"] for q in qs], show_results_after_submission=True)
    matrix = [[1, 1, 1], [1, 1, 0], [1, 0, 0], [0, 1, 0]]
    attempts = []
    for st, row in zip(students, matrix, strict=False):
        a = tenant.start(t, st)
        app.exams.post("/api/attempt-answers", headers=st.headers, json=[
            {"attempt_id": a["id"], "question_id": q["id"], "selected_option": "A" if x else "B", "time_spent": 10 + i}
            for i, (q, x) in enumerate(zip(qs, row, strict=False))])
        r = app.exams.post(f"/api/attempts/{a['id']}/submit", headers=st.headers)
        assert r.json()["data"]["score"] == sum(row)
        attempts.append(a)
    assert drain_analytics(app) == 4
    # re-delivery of the same message is folded once only
    from exams.analytics import service as an

    assert an.fold_attempt(attempts[0]["id"]) == 0
    r = app.exams.get(f"/api/analytics/tests/{t['id']}", headers=ca.headers)
    assert r.status == 200, r.text
    d = r.json()["data"]
    assert (d["total_attempts"], d["completed"], d["average_score"]) == (4, 4, 1.75)
    items = {x["question_id"]: x for x in d["difficulty_analysis"]["questions"]}
    # direct computation for item 1: x = [1,1,1,0], rest = [2,1,0,1]
    x, rest = [1, 1, 1, 0], [2, 1, 0, 1]
    n = 4
    mx, mr = sum(x) / n, sum(rest) / n
    cov = sum((a - mx) * (b - mr) for a, b in zip(x, rest, strict=False)) / (n - 1)
    vx = sum((a - mx) ** 2 for a in x) / (n - 1)
    vr = sum((b - mr) ** 2 for b in rest) / (n - 1)
    i1 = items[qs[0]["id"]]
    assert i1["facility_index"] == pytest.approx(75.0, abs=1e-6)
    assert i1["discrimination_index"] == pytest.approx(100 * cov / math.sqrt(vx * vr), abs=1e-6)
    totals = [3, 2, 1, 1]
    vt = sum((t_ - 1.75) ** 2 for t_ in totals) / 3
    var_items = [sum((v - sum(col) / 4) ** 2 for v in col) / 3 for col in zip(*matrix, strict=False)]
    alpha = 3 / 2 * (1 - sum(var_items) / vt)
    assert d["test_statistics"]["cronbach_alpha"] == pytest.approx(alpha, abs=1e-6)
    assert d["test_statistics"]["kr20"] == pytest.approx(alpha, abs=1e-6)
    assert d["test_statistics"]["sd"] == pytest.approx(math.sqrt(vt), abs=1e-6)
    assert app.exams.get(f"/api/analytics/tests/{t['id']}", headers=students[0].headers).status == 403

    r = app.exams.get(f"/api/analytics/students/{students[0].id}", headers=students[0].headers)
    sd = r.json()["data"]
    assert r.status == 200 and sd["completed"] == 1 and sd["average_percentage"] == 100.0
    assert sd["per_test"][0]["best_percentage"] == 100.0 and len(sd["trend"]) == 1
    assert app.exams.get(f"/api/analytics/students/{students[1].id}", headers=students[0].headers).status == 403

    r = app.exams.get("/api/stats/dashboard", headers=ca.headers)
    db = r.json()["data"]
    assert r.status == 200 and db["counts"]["attempts_submitted"] == 4 and db["counts"]["tests"] == 1
    assert db["average_score"] == pytest.approx((100 + 200 / 3 + 100 / 3 + 100 / 3) / 4, abs=1e-3)
    assert [p["percentage"] for p in db["top_performers"]][:2] == [100.0, pytest.approx(66.6667, abs=1e-3)]
    assert db["per_test"][0]["completed"] == 4 and db["usage_vs_limits"]["plan_id"] == "enterprise"
    sa = tenant.users.super_admin()
    r = app.exams.get("/api/stats", headers=sa.headers)
    g = r.json()["data"]
    assert r.status == 200 and g["totals"]["attempts_submitted"] == 4
    assert g["top_organisations"][0] == {"client_id": tenant.cid, "name": "Acme", "submitted_attempts": 4}
    assert g["activity_today"]["attempts_started"] == 4 and g["live_load"]["attempts_in_progress"] == 0
    assert g["plan_distribution"].get("enterprise") == 1
    assert app.exams.get("/api/stats", headers=students[0].headers).status == 403

    # XLSX report
    st = students[1]
    r = app.exams.get(f"/api/attempts/{attempts[1]['id']}/report", headers=st.headers)
    assert r.status == 200, r.text
    assert r.headers["content-type"] == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    assert r.headers["content-disposition"].startswith('attachment; filename="attempt-report-')
    if os.environ.get("SAVE_REPORT"):  # manual LibreOffice check (docs/exams-insight.md)
        with open(os.environ["SAVE_REPORT"], "wb") as fh:
            fh.write(r.body)
    from openpyxl import load_workbook

    wb = load_workbook(io.BytesIO(r.body))
    assert wb.sheetnames == ["Summary", "Detailed Questions", "Analytics"]
    summary = {row[0]: row[1] for row in wb["Summary"].iter_rows(values_only=True) if row and row[0]}
    assert summary["Score"] == 2 and summary["Total marks"] == 3 and summary["Candidate"] == st.name
    det = list(wb["Detailed Questions"].iter_rows(values_only=True))
    assert det[1][1] == "'=HYPERLINK(\"http://evil\")"  # neutralised
    assert [row[9] for row in det[1:]] == ["correct", "correct", "incorrect"] or \
        sorted(row[9] for row in det[1:]) == ["correct", "correct", "incorrect"]
    assert len(wb["Analytics"]._charts) >= 1
    assert app.exams.get(f"/api/attempts/{attempts[1]['id']}/report", headers=students[0].headers).status == 403
    assert app.exams.get(f"/api/attempts/{attempts[1]['id']}/report", headers=ca.headers).status == 200
