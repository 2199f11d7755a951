"""The three-sheet attempt report (openpyxl imported lazily). Every row, headers included, goes
through ``lambdakit.csvsafe.neutralise_row`` (formula injection; openpyxl would store a text
cell starting with ``=`` as a formula).

Presentation (issue 31 item 5), as a spreadsheet application shows it: one font family (Calibri,
headers bold), numbers with number formats (a percentage is a fraction in a ``0.00%`` cell,
seconds are whole numbers in a ``0" s"`` cell, timestamps are real datetimes in UTC with a
``yyyy-mm-dd hh:mm:ss`` format), question text wrapped in columns wide enough to read, A4
landscape pages fitted to the width with the header row repeated.

Correctness (issue 32 item 1): ``report["correctness"]`` false (results hidden from the requester)
drops every correctness column and chart series; ``reports.service`` does not even pass them.
"""
from __future__ import annotations

import datetime as dt
import io
from typing import Any

from lambdakit.csvsafe import neutralise_row
from lambdakit.deferred import defer

SHEETS = ("Summary", "Detailed Questions", "Analytics")
FONT = "Calibri"
PERCENT, SECONDS, DATETIME, DECIMAL = "0.00%", '0" s"', "yyyy-mm-dd hh:mm:ss", "0.00"
HIDDEN = "Hidden until the results are released"


def _when(value: Any) -> dt.datetime | None:
    """An ISO timestamp as a naive UTC datetime (spreadsheets have no time zones)."""
    if not value:
        return None
    from lambdakit import clock

    try:
        return clock.parse_iso(str(value)).replace(tzinfo=None)
    except ValueError:
        return None


def _fraction(percentage: Any) -> float | None:
    return None if percentage is None else round(float(percentage) / 100, 6)


class _Sheet:
    """Appends neutralised rows with a number format per column and the shared styles."""

    def __init__(self, ws: Any, styles: dict[str, Any]) -> None:
        self.ws, self.styles = ws, styles

    def header(self, cells: list[str]) -> None:
        self.row(cells)
        for cell in self.ws[self.ws.max_row]:
            cell.font, cell.alignment, cell.fill = self.styles["bold"], self.styles["head"], self.styles["fill"]

    def row(self, cells: list[Any], formats: dict[int, str] | None = None, wrap: tuple[int, ...] = ()) -> None:
        self.ws.append(neutralise_row(cells))
        for i, cell in enumerate(self.ws[self.ws.max_row]):
            cell.font = self.styles["body"]
            if formats and i in formats and cell.value is not None:
                cell.number_format = formats[i]
            cell.alignment = self.styles["wrap"] if i in wrap else self.styles["top"]


def build(report: dict) -> bytes:
    defer("PIL.Image")  # openpyxl imports Pillow for embedded images; the report has none
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill

    shown = bool(report.get("correctness"))
    styles = {"body": Font(name=FONT, size=11), "bold": Font(name=FONT, size=11, bold=True),
              "head": Alignment(wrap_text=True, vertical="top"), "top": Alignment(vertical="top"),
              "wrap": Alignment(wrap_text=True, vertical="top"),
              "fill": PatternFill("solid", start_color="DCE6F1", end_color="DCE6F1")}
    wb = Workbook()
    ws = wb.active
    ws.title = "Summary"
    _summary(_Sheet(ws, styles), report, shown)
    _detailed(_Sheet(wb.create_sheet("Detailed Questions"), styles), report, shown)
    _analytics(_Sheet(wb.create_sheet("Analytics"), styles), report, shown)
    _page_setup(wb, shown)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _summary(s: _Sheet, report: dict, shown: bool) -> None:
    s.header(["Report", "Value"])
    rows: list[tuple[str, Any, str | None]] = [("Candidate", report["candidate"], None),
                                               ("Test", report["test_name"], None), ("Status", report["status"], None)]
    if shown:
        rows += [("Score", report.get("score"), DECIMAL), ("Total marks", report["total_marks"], DECIMAL),
                 ("Percentage", _fraction(report.get("percentage")), PERCENT), ("Result", report.get("result"), None)]
    else:
        rows += [("Total marks", report["total_marks"], DECIMAL), ("Results", HIDDEN, None)]
    rows += [("Time taken", report["time_taken"], SECONDS), ("Started at (UTC)", _when(report["started_at"]), DATETIME),
             ("Submitted at (UTC)", _when(report["submitted_at"]), DATETIME),
             ("Risk score", report["risk_score"], None)]
    for label, value, fmt in rows:
        s.row([label, value], {1: fmt} if fmt else None)
        s.ws.cell(s.ws.max_row, 1).font = s.styles["bold"]
    s.row([])
    if shown:
        s.header(["Section", "Questions", "Correct", "Marks awarded", "Max marks"])
        for sec in report["sections"]:
            s.row([sec["title"], sec["questions"], sec.get("correct"), sec.get("marks_awarded"), sec["max_marks"]],
                  {3: DECIMAL, 4: DECIMAL})
    else:
        s.header(["Section", "Questions", "Max marks"])
        for sec in report["sections"]:
            s.row([sec["title"], sec["questions"], sec["max_marks"]], {2: DECIMAL})


def _detailed(s: _Sheet, report: dict, shown: bool) -> None:
    head = ["#", "Question", "Type", "Option A", "Option B", "Option C", "Option D", "Chosen answer"]
    if shown:
        head += ["Correct answer", "Status", "Marks awarded"]
    s.header(head + ["Max marks"])
    for i, q in enumerate(report["questions"], start=1):
        cells = [i, q["text"], q["type"], *(q["options"].get(L) for L in "ABCD"), q["chosen"]]
        if shown:
            cells += [q.get("correct"), q.get("status"), q.get("marks_awarded")]
        cells.append(q["max_marks"])
        fmts = {len(cells) - 1: DECIMAL, **({len(cells) - 2: DECIMAL} if shown else {})}
        s.row(cells, fmts, wrap=(1, 3, 4, 5, 6, 7))


def _analytics(s: _Sheet, report: dict, shown: bool) -> None:
    from openpyxl.chart import BarChart, Reference

    head = ["#", "Question", "Time spent"]
    if shown:
        head += ["Correct ratio (all candidates)", "Facility index", "Discrimination index"]
    head += ["Difficulty"] + (["Marks awarded"] if shown else [])
    s.header(head)
    for i, q in enumerate(report["questions"], start=1):
        cells: list[Any] = [i, q["text"], q["time_spent"]]
        fmts = {2: SECONDS}
        if shown:
            cells += [q.get("correct_ratio"), q.get("facility_index"), q.get("discrimination_index")]
            fmts.update({3: PERCENT, 4: DECIMAL, 5: DECIMAL})
        cells.append(q["difficulty"])
        if shown:
            cells.append(q.get("marks_awarded"))
            fmts[len(cells) - 1] = DECIMAL
        s.row(cells, fmts, wrap=(1,))
    wa, n = s.ws, len(report["questions"])
    s.row([])
    s.header(["Difficulty", "Questions"] + (["Correct (this attempt)"] if shown else []))
    start = wa.max_row + 1
    for band, d in report["difficulty_analysis"].items():
        s.row([band, d["questions"]] + ([d.get("correct", 0)] if shown else []))
    if not n:
        return
    chart = BarChart()
    chart.title = "Time per question (seconds)"
    chart.y_axis.title = "Seconds"
    chart.x_axis.title = "Question"
    chart.add_data(Reference(wa, min_col=3, min_row=1, max_row=n + 1), titles_from_data=True)
    chart.set_categories(Reference(wa, min_col=1, min_row=2, max_row=n + 1))
    chart.height, chart.width = 7.5, 16
    wa.add_chart(chart, "A" + str(wa.max_row + 3))
    bands = BarChart()
    bands.title = "Difficulty analysis"
    bands.add_data(Reference(wa, min_col=2, min_row=start - 1, max_row=wa.max_row, max_col=3 if shown else 2),
                   titles_from_data=True)
    bands.set_categories(Reference(wa, min_col=1, min_row=start, max_row=wa.max_row))
    wa.add_chart(bands, "E" + str(wa.max_row + 3))


def _page_setup(wb: Any, shown: bool) -> None:
    from openpyxl.utils import get_column_letter

    widths = {"Summary": [26, 44, 12, 16, 12],
              "Detailed Questions": [5, 60, 14, 18, 18, 18, 18, 18] + ([18, 12, 14] if shown else []) + [11],
              "Analytics": [12, 60, 12] + ([16, 14, 14] if shown else []) + [12] + ([14] if shown else [])}
    for sheet in wb.worksheets:
        for i, w in enumerate(widths[sheet.title], start=1):
            sheet.column_dimensions[get_column_letter(i)].width = w
        sheet.page_setup.paperSize = sheet.PAPERSIZE_A4
        sheet.page_setup.orientation = "landscape"
        sheet.page_setup.fitToWidth = 1
        sheet.page_setup.fitToHeight = 0
        sheet.sheet_properties.pageSetUpPr.fitToPage = True
        sheet.print_title_rows = "1:1"
        sheet.freeze_panes = "A2"
