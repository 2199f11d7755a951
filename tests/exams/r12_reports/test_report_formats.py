"""Issue 31 item 5: the XLSX report as a spreadsheet application shows it, read back with openpyxl:
number formats (a percentage is a fraction in a percent format, seconds, timestamps as real
datetimes with a date format), A4 paper, one font family for headers and body, wrapped question
text in wide columns, and true/false answers in the same terms on both sides."""
from __future__ import annotations

import io

from tests.exams.delivery.delivery_helpers import drain_analytics, mcq

LONG = ("Which of the following statements about the time complexity of building a binary heap from an "
        "unsorted array of n elements is correct when using the bottom-up heapify method?")


def _report(tenant):
    app = tenant.app
    qs = [tenant.question(**mcq(LONG, correct="A")), tenant.question(**mcq("Q2", correct="B")),
          tenant.question(question_text="Water boils at 100 C at sea level", question_type="true_false",
                          correct_answer="true", marks=1)]
    t = tenant.test([q["id"] for q in qs], show_results_after_submission=True)
    st = tenant.students[0]
    a = tenant.start(t, st)
    r = app.exams.post("/api/attempt-answers", headers=st.headers, json=[
        {"attempt_id": a["id"], "question_id": q["id"], "selected_option": x, "time_spent": 20 + i}
        for i, (q, x) in enumerate(zip(qs, ["A", "B", "false"], strict=True))])
    assert r.status == 200, r.text
    assert app.exams.post(f"/api/attempts/{a['id']}/submit", headers=st.headers).status == 200
    drain_analytics(app)
    r = app.exams.get(f"/api/attempts/{a['id']}/report", headers=st.headers)
    assert r.status == 200, r.text
    from openpyxl import load_workbook

    return load_workbook(io.BytesIO(r.body))


def test_report_formats_read_back(tenant):
    wb = _report(tenant)
    ws = wb["Summary"]
    cells = {row[0].value: row[1] for row in ws.iter_rows(min_row=2, max_col=2) if row[0].value}
    pct = cells["Percentage"]
    assert pct.number_format == "0.00%" and abs(pct.value - 2 / 3) < 1e-4  # 66.67 %, stored as a fraction
    assert cells["Score"].value == 2 and cells["Total marks"].value == 3
    assert cells["Time taken"].number_format == '0" s"' and isinstance(cells["Time taken"].value, int)
    for label in ("Started at (UTC)", "Submitted at (UTC)"):
        c = cells[label]
        assert c.is_date and c.number_format == "yyyy-mm-dd hh:mm:ss", (label, c.value, c.number_format)
    assert cells["Submitted at (UTC)"].value >= cells["Started at (UTC)"].value

    fonts = set()
    for sheet in wb.worksheets:
        assert int(sheet.page_setup.paperSize) == 9, sheet.title  # 9: A4 (ECMA-376 paperSize)
        assert sheet.page_setup.orientation == "landscape"
        header, body = sheet["A1"], sheet["B2"]
        assert header.font.b and not body.font.b
        for row in sheet.iter_rows():
            fonts.update(c.font.name for c in row if c.value is not None)
    assert fonts == {"Calibri"}  # headers and body of every sheet in one family

    det = wb["Detailed Questions"]
    head = [c.value for c in det[1]]
    q_col = head.index("Question") + 1
    assert det.column_dimensions["B"].width >= 50
    for row in det.iter_rows(min_row=2, min_col=q_col, max_col=q_col):
        assert row[0].alignment.wrap_text, row[0].coordinate
    rows = {r[1]: dict(zip(head, r, strict=True)) for r in det.iter_rows(min_row=2, values_only=True)}
    tf = rows["Water boils at 100 C at sea level"]
    assert (tf["Chosen answer"], tf["Correct answer"], tf["Status"]) == ("False", "True", "incorrect")
    assert (rows[LONG]["Chosen answer"], rows[LONG]["Correct answer"]) == ("A", "A")

    an = wb["Analytics"]
    head = [c.value for c in an[1]]
    ratio = an.cell(2, head.index("Correct ratio (all candidates)") + 1)
    assert ratio.number_format == "0.00%" and 0 <= ratio.value <= 1
    spent = an.cell(2, head.index("Time spent") + 1)
    assert spent.number_format == '0" s"' and spent.value == 20
    assert an.cell(2, head.index("Question") + 1).alignment.wrap_text
    assert an.cell(2, head.index("Question") + 1).value == LONG  # whole text, wrapped, not cut at 80
