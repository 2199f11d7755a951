"""The three-sheet attempt report (openpyxl imported lazily). Every row, headers included, goes
through ``lambdakit.csvsafe.neutralise_row`` (formula injection; openpyxl would store a text
cell starting with ``=`` as a formula)."""
from __future__ import annotations

import io
from typing import Any

from lambdakit.csvsafe import neutralise_row
from lambdakit.deferred import defer

SHEETS = ("Summary", "Detailed Questions", "Analytics")


def _append(sheet: Any, cells: list[Any]) -> None:
    sheet.append(neutralise_row(cells))


def build(report: dict) -> bytes:
    defer("PIL.Image")  # openpyxl imports Pillow for embedded images; the report has none
    from openpyxl import Workbook
    from openpyxl.chart import BarChart, Reference
    from openpyxl.styles import Font

    wb = Workbook()
    bold = Font(bold=True)

    ws = wb.active
    ws.title = "Summary"
    rows = [
        ("Candidate", report["candidate"]), ("Test", report["test_name"]),
        ("Status", report["status"]), ("Score", report["score"]), ("Total marks", report["total_marks"]),
        ("Percentage", report["percentage"]), ("Result", report["result"]),
        ("Time taken (seconds)", report["time_taken"]), ("Started at", report["started_at"]),
        ("Submitted at", report["submitted_at"]), ("Risk score", report["risk_score"]),
    ]
    _append(ws, ["Report", "Value"])
    for r in rows:
        _append(ws, list(r))
    _append(ws, [])
    _append(ws, ["Section", "Questions", "Correct", "Marks awarded", "Max marks"])
    header_row = ws.max_row
    for s in report["sections"]:
        _append(ws, [s["title"], s["questions"], s["correct"], s["marks_awarded"], s["max_marks"]])
    for cell in list(ws[1]) + list(ws[header_row]):
        cell.font = bold
    ws.column_dimensions["A"].width = 24
    ws.column_dimensions["B"].width = 40

    wq = wb.create_sheet("Detailed Questions")
    _append(wq, ["#", "Question", "Type", "Option A", "Option B", "Option C", "Option D", "Chosen answer",
               "Correct answer", "Status", "Marks awarded", "Max marks"])
    for i, q in enumerate(report["questions"], start=1):
        _append(wq, [i, q["text"], q["type"], q["options"].get("A"), q["options"].get("B"),
                   q["options"].get("C"), q["options"].get("D"), q["chosen"], q["correct"],
                   q["status"], q["marks_awarded"], q["max_marks"]])
    for cell in wq[1]:
        cell.font = bold
    wq.column_dimensions["B"].width = 50

    wa = wb.create_sheet("Analytics")
    _append(wa, ["#", "Question", "Time spent (seconds)", "Correct ratio (all candidates)", "Facility index",
               "Difficulty", "Marks awarded"])
    for i, q in enumerate(report["questions"], start=1):
        _append(wa, [i, q["text"][:80], q["time_spent"], q["correct_ratio"], q["facility_index"], q["difficulty"],
                   q["marks_awarded"]])
    for cell in wa[1]:
        cell.font = bold
    n = len(report["questions"])
    _append(wa, [])
    _append(wa, ["Difficulty", "Questions", "Correct (this attempt)"])
    start = wa.max_row + 1
    for band, d in report["difficulty_analysis"].items():
        _append(wa, [band, d["questions"], d["correct"]])
    if n:
        chart = BarChart()
        chart.title = "Time per question (seconds)"
        chart.y_axis.title = "Seconds"
        chart.x_axis.title = "Question"
        chart.add_data(Reference(wa, min_col=3, min_row=1, max_row=n + 1), titles_from_data=True)
        chart.set_categories(Reference(wa, min_col=1, min_row=2, max_row=n + 1))
        chart.height, chart.width = 7.5, 16
        wa.add_chart(chart, "A" + str(wa.max_row + 3))
        chart2 = BarChart()
        chart2.title = "Difficulty analysis"
        chart2.add_data(Reference(wa, min_col=2, min_row=start - 1, max_row=wa.max_row, max_col=3),
                        titles_from_data=True)
        chart2.set_categories(Reference(wa, min_col=1, min_row=start, max_row=wa.max_row))
        wa.add_chart(chart2, "E" + str(wa.max_row + 3))
    wa.column_dimensions["B"].width = 40
    widths = {"Summary": [24, 44, 12, 16, 12], "Detailed Questions": [5, 48, 13, 12, 12, 12, 12, 16, 16, 12, 14, 11],
              "Analytics": [12, 40, 20, 28, 14, 12, 14]}
    from openpyxl.utils import get_column_letter

    for sheet in wb.worksheets:
        for i, w in enumerate(widths[sheet.title], start=1):
            sheet.column_dimensions[get_column_letter(i)].width = w
        sheet.page_setup.orientation = "landscape"
        sheet.page_setup.fitToWidth = 1
        sheet.page_setup.fitToHeight = 0
        sheet.sheet_properties.pageSetUpPr.fitToPage = True
        sheet.print_title_rows = "1:1"
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()
