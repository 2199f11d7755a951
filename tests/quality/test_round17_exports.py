"""Issue 17, item 2: formula injection in every CSV and XLSX the services write.

Every cell, header cells included, goes through ``lambdakit.csvsafe`` (OWASP CSV injection):
a leading ``= + - @ TAB CR`` and a formula start after a field separator inside the cell
(``,`` ``;`` TAB CR LF) are neutralised with a single quote.

Writers: campaigns ``GET /contacts/export`` (inline and as an export job, one renderer),
internships ``POST /api/admin/export`` (every entity), exams ``GET /api/attempts/{id}/report``
(XLSX).
"""
from __future__ import annotations

import csv
import io
import re

import pytest

from tests.exams.delivery.delivery_helpers import mcq
from tests.quality.conftest import assert_error  # noqa: F401 - same fixtures module

# a formula start at the beginning of a cell, or after a separator inside it, not escaped
LEADING = re.compile(r"^ *[=+\-@\t\r]")
EMBEDDED = re.compile(r"[,;\t\r\n] *[=+\-@\t\r]")
HOSTILE = ['=HYPERLINK("http://evil.example","x")', "a;=1+1", "a,=1+1", "ok\t=1+1", "x\n@SUM(A1)", " =1+1",
           "+1", "-2+3", "@cmd", "\t=1", "\r=1", "a; -1", "b;\r=1"]


def _one_line(v: str) -> str:
    """Names are single-line fields (issue 32 item 8 refuses tab/CR/LF there with 422): the hostile
    value without them (custom fields too: their values are single-line strings)."""
    return v.replace("\t", "").replace("\r", "").replace("\n", "") or "x"


def _unsafe_cells(cells) -> list[str]:
    out = []
    for c in cells:
        if not isinstance(c, str) or not c:
            continue
        if EMBEDDED.search(c) or (not c.startswith("'") and LEADING.match(c)):
            out.append(c)
    return out


# ---------------------------------------------------------------- the neutraliser
@pytest.mark.parametrize("value,expected", [
    ("=1+1", "'=1+1"), ("a;=1+1", "'a;'=1+1"), ("a,=1+1", "'a,'=1+1"), ("a\t=1", "'a\t'=1"),
    ("a; =1", "'a; '=1"), ("x\n@y", "'x\n'@y"), (" =1", "' =1"), ("-5", "'-5"), ("\r=1", "'\r'=1"),
    ("plain text", "plain text"), ("a;b", "a;b"), ("a-b+c@d=e", "a-b+c@d=e"), ("", ""),
])
def test_neutralise(value, expected):
    from lambdakit.csvsafe import neutralise

    assert neutralise(value) == expected


def test_neutralise_passes_non_text():
    from lambdakit.csvsafe import neutralise, neutralise_row

    assert neutralise_row([1, -2.5, None, True, "=x"]) == [1, -2.5, None, True, "'=x"]
    assert neutralise(-3) == -3


def test_writer_neutralises_header_and_rows():
    from lambdakit import csvsafe

    buf = io.StringIO()
    w = csvsafe.writer(buf, lineterminator="\n")
    w.writerow(["=HEAD", "ok"])
    w.writerows([["a;=1", 2]])
    rows = list(csv.reader(io.StringIO(buf.getvalue())))
    assert rows == [["'=HEAD", "ok"], ["'a;'=1", "2"]]


# ---------------------------------------------------------------- every writer
def test_campaigns_export_header_and_cells(campaigns_app, make_key):
    c = campaigns_app.campaigns
    h = {"Authorization": f"Bearer {make_key(role='admin')}"}
    for i, v in enumerate(HOSTILE):
        r = c.post("/contacts", headers=h, json={"email": f"evil{i}@example.com", "first_name": _one_line(v), "last_name": _one_line(v),
                                                 "custom_fields": {"note": _one_line(v), f'=HYPERLINK("http://e{i}")': _one_line(v)}})
        assert r.status == 201, r.text
    r = c.get("/contacts/export", headers=h)
    assert r.status == 200, r.text
    rows = list(csv.reader(io.StringIO(r.text)))
    header = rows[0]
    assert any(x.startswith("'=HYPERLINK(") for x in header), header
    assert _unsafe_cells(cell for row in rows for cell in row) == []
    assert "'a;'=1+1" in [cell for row in rows for cell in row]


@pytest.mark.parametrize("entity", ["users", "enrollments", "certificates", "domains"])
def test_internships_admin_export_every_cell(internships_app, intern_users, entity):
    api = internships_app.internships
    sa = intern_users.staff("super_admin")
    for v in HOSTILE:
        intern_users.student(name=v.strip() or "x", city=v, college=v)
    r = api.post("/api/admin/export", headers=sa.headers, json={"entity": entity})
    assert r.status == 200, r.text
    rows = list(csv.reader(io.StringIO(r.text.lstrip("\ufeff"))))
    assert _unsafe_cells(cell for row in rows for cell in row) == []
    if entity == "users":
        assert "'a;'=1+1" in [cell for row in rows for cell in row]


def test_exams_xlsx_every_cell(exams_tenants):
    from openpyxl import load_workbook

    t = exams_tenants[0]
    qs = [t.question(**mcq(v if v.strip() else "q", correct="A")) for v in HOSTILE[:6]]
    test = t.test([q["id"] for q in qs], show_results_after_submission=True, test_name="a;=1+1")
    api = t.app.exams
    st = t.students[0]
    a = t.start(test, st)
    api.post("/api/attempt-answers", headers=st.headers, json=[
        {"attempt_id": a["id"], "question_id": q["id"], "selected_option": "A", "time_spent": 5} for q in qs])
    assert api.post(f"/api/attempts/{a['id']}/submit", headers=st.headers).status == 200
    r = api.get(f"/api/attempts/{a['id']}/report", headers=t.ca.headers)
    assert r.status == 200, r.text
    wb = load_workbook(io.BytesIO(r.body))
    cells = [c for ws in wb.worksheets for row in ws.iter_rows(values_only=True) for c in row]
    assert "'a;'=1+1" in cells
    assert _unsafe_cells(cells) == []
