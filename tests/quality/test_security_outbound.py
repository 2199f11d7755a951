"""SSRF on every user-given URL and formula injection on every export.

User-given URLs: campaigns webhook ``url`` (create and update; checked outside the local
stage, where the local stage allows loopback receivers), internships ``/api/proxy-image?url=``.
Job feeds (``INTERNSHIPS_JOB_FEEDS`` / search queries) are deployment configuration, not user
input, so they are not part of this list (docs/quality.md).

Exports: campaigns ``GET /contacts/export`` (CSV), internships ``POST /api/admin/export``
(CSV, every entity), exams ``GET /api/attempts/{attemptId}/report`` (XLSX). Every string cell
that a spreadsheet would evaluate (leading ``= + - @ TAB CR``) must be neutralised.
"""
from __future__ import annotations

import csv
import io

import pytest

from tests.exams.delivery.delivery_helpers import mcq
from tests.quality.conftest import assert_error

SSRF_URLS = [
    "https://169.254.169.254/latest/meta-data/", "http://169.254.169.254/", "https://[fd00:ec2::254]/",
    "https://10.0.0.1/x", "https://192.168.1.1/x", "https://172.16.0.1/x", "https://127.0.0.1/x",
    "https://[::1]/x", "https://localhost/x", "https://0.0.0.0/x", "https://2130706433/x", "https://0x7f000001/x",
    "https://[::ffff:127.0.0.1]/x", "file:///etc/passwd", "gopher://example.com/", "ftp://example.com/x",
    "http://example.com/x", "https://user:pass@10.0.0.1/", "not a url", "",
]
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
HOSTILE = ["=HYPERLINK(\"http://evil\")", "+SUM(A1)", "-2+3", "@cmd", "\t=1", "\r=1"]


def _one_line(v: str) -> str:
    """Names are single-line fields (issue 32 item 8 refuses tab/CR/LF there with 422): the hostile
    value without them (custom fields too: their values are single-line strings)."""
    return v.replace("\t", "").replace("\r", "").replace("\n", "") or "x"


def _formula_cells(cells) -> list[str]:
    return [c for c in cells if isinstance(c, str) and c and c[0] in FORMULA_START]


# ---------------------------------------------------------------- SSRF
def test_campaigns_webhook_urls_refuse_internal_targets(campaigns_app, make_key, monkeypatch):
    from lambdakit.settings import reset_settings

    c = campaigns_app.campaigns
    h = {"Authorization": f"Bearer {make_key(role='admin')}"}
    ok = c.post("/webhooks", json={"name": "ok", "url": "https://hooks.example.com/x", "events": ["campaign.created"]},
                headers=h)
    assert ok.status == 201, ok.text
    wid = ok.json()["data"]["id"]
    monkeypatch.setenv("CAMPAIGNS_STAGE", "prod")
    reset_settings()
    try:
        for url in SSRF_URLS:
            r = c.post("/webhooks", json={"name": "x", "url": url, "events": ["campaign.created"]}, headers=h)
            assert_error("campaigns", r, 422)
            r = c.put(f"/webhooks/{wid}", json={"url": url}, headers=h)
            assert_error("campaigns", r, 422)
    finally:
        monkeypatch.setenv("CAMPAIGNS_STAGE", "local")
        reset_settings()
    assert c.get(f"/webhooks/{wid}", headers=h).json()["data"]["url"] == "https://hooks.example.com/x"


def test_internships_proxy_image_refuses_internal_and_foreign_targets(internships_app, intern_users):
    api = internships_app.internships
    st = intern_users.student()
    for url in SSRF_URLS + ["https://evil.example/a.png", "https://lh3.googleusercontent.com.evil.example/a.png",
                            "https://lh3.googleusercontent.com@10.0.0.1/a.png"]:
        for headers in ({}, st.headers):
            r = api.get("/api/proxy-image", query={"url": url}, headers=headers)
            assert_error("internships", r, 400, 403, 422)


# ---------------------------------------------------------------- formula injection
def test_campaigns_contacts_export_neutralises_every_cell(campaigns_app, make_key):
    c = campaigns_app.campaigns
    h = {"Authorization": f"Bearer {make_key(role='admin')}"}
    for i, v in enumerate(HOSTILE):
        r = c.post("/contacts", headers=h, json={"email": f"evil{i}@example.com", "first_name": _one_line(v), "last_name": _one_line(v),
                                                 "tags": [v.strip() or "t"], "custom_fields": {"note": _one_line(v)}})
        assert r.status == 201, r.text
    r = c.get("/contacts/export", headers=h)
    assert r.status == 200
    rows = list(csv.reader(io.StringIO(r.text)))
    assert len(rows) == len(HOSTILE) + 1
    assert _formula_cells(cell for row in rows for cell in row) == []


@pytest.mark.parametrize("entity", ["users", "enrollments", "certificates", "domains"])
def test_internships_admin_export_neutralises_every_cell(internships_app, intern_users, entity):
    api = internships_app.internships
    sa = intern_users.staff("super_admin")
    for v in HOSTILE:
        intern_users.student(name=v, city=v, college=v)
    r = api.post("/api/admin/export", headers=sa.headers, json={"entity": entity})
    assert r.status == 200, r.text
    rows = list(csv.reader(io.StringIO(r.text)))
    assert _formula_cells(cell for row in rows for cell in row) == []
    if entity == "users":
        assert len(rows) >= len(HOSTILE) + 1


def test_exams_xlsx_report_neutralises_every_cell(exams_tenants):
    from openpyxl import load_workbook

    t = exams_tenants[0]
    qs = [t.question(**mcq(v, correct="A", explanation=v)) for v in HOSTILE]
    test = t.test([q["id"] for q in qs], show_results_after_submission=True, test_name="=EVIL()")
    api = t.app.exams
    st = t.students[0]
    assert api.put(f"/api/profiles/{st.id}", json={"name": "=cmd|' /C calc'!A0"}, headers=t.ca.headers).status == 200
    a = t.start(test, st)
    gh = st.headers
    api.post("/api/attempt-answers", headers=gh, json=[
        {"attempt_id": a["id"], "question_id": q["id"], "selected_option": "A", "time_spent": 5} for q in qs])
    r = api.post(f"/api/attempts/{a['id']}/submit", headers=gh)
    assert r.status == 200, r.text
    r = api.get(f"/api/attempts/{a['id']}/report", headers=t.ca.headers)
    assert r.status == 200, r.text
    wb = load_workbook(io.BytesIO(r.body))
    cells = [c for ws in wb.worksheets for row in ws.iter_rows(values_only=True) for c in row]
    assert any(isinstance(c, str) and c.startswith("'=") for c in cells)
    assert _formula_cells(cells) == []
