"""Question validation shared by the create route and the CSV import (pure)."""
from __future__ import annotations

import csv
import io
from typing import Any

from ..grading import OPTION_LETTERS, QUESTION_TYPES, norm_letter, norm_letters, norm_true_false

DIFFICULTIES = ("easy", "medium", "hard")
MAX_TEXT = 5000
MAX_OPTION = 1000
CSV_COLUMNS = ("question_text", "question_type", "option_a", "option_b", "option_c", "option_d", "correct_answer",
               "marks", "difficulty")
OPTIONAL_CSV_COLUMNS = ("correct_answers", "case_sensitive", "folder_id")


class RuleError(ValueError):
    def __init__(self, field: str, message: str, code: str = "VALIDATION_ERROR"):
        super().__init__(message)
        self.field = field
        self.message = message
        self.code = code


def normalise_question(d: dict[str, Any]) -> dict[str, Any]:
    """Business rules of a question (type, answer key, marks, difficulty). Returns the stored
    fields (answer keys in canonical form) or raises ``RuleError``."""
    qt = str(d.get("question_type") or "").strip().lower()
    if qt not in QUESTION_TYPES:
        raise RuleError("question_type", f"question_type must be one of {', '.join(QUESTION_TYPES)}",
                        "INVALID_QUESTION_TYPE")
    text = str(d.get("question_text") or "").strip()
    if not text:
        raise RuleError("question_text", "question_text is required")
    if len(text) > MAX_TEXT:
        raise RuleError("question_text", f"question_text must be at most {MAX_TEXT} characters")
    out: dict[str, Any] = {"question_text": text, "question_type": qt}
    for k in OPTION_LETTERS:
        v = d.get(f"option_{k.lower()}")
        v = None if v is None else str(v).strip()
        if v and len(v) > MAX_OPTION:
            raise RuleError(f"option_{k.lower()}", f"option_{k.lower()} must be at most {MAX_OPTION} characters")
        out[f"option_{k.lower()}"] = v or None
    raw_marks = d.get("marks")
    try:
        marks = float(1 if raw_marks is None or raw_marks == "" else raw_marks)
    except (TypeError, ValueError):
        raise RuleError("marks", "marks must be a number") from None
    if not (0 < marks <= 1000):
        raise RuleError("marks", "marks must be greater than 0 and at most 1000")
    out["marks"] = int(marks) if marks == int(marks) else marks
    diff = str(d.get("difficulty") or "medium").strip().lower()
    if diff not in DIFFICULTIES:
        raise RuleError("difficulty", f"difficulty must be one of {', '.join(DIFFICULTIES)}")
    out["difficulty"] = diff
    out["case_sensitive"] = bool(d.get("case_sensitive")) and str(d.get("case_sensitive")).lower() not in ("0", "false")
    present = [k for k in OPTION_LETTERS if out[f"option_{k.lower()}"]]
    ca = d.get("correct_answer")
    cas = d.get("correct_answers")
    if qt == "mcq":
        if len(present) < 2:
            raise RuleError("options", "an mcq question needs at least option_a and option_b")
        letter = norm_letter(ca)
        if not letter:
            raise RuleError("correct_answer", "correct_answer is required")
        if letter not in present:
            raise RuleError("correct_answer", "correct_answer must be the letter of a non-empty option (A-D)")
        out["correct_answer"], out["correct_answers"] = letter, None
    elif qt == "true_false":
        tf = norm_true_false(ca)
        if not tf:
            raise RuleError("correct_answer", "correct_answer must be A (true), B (false), true or false")
        out["option_a"] = out["option_a"] or "True"
        out["option_b"] = out["option_b"] or "False"
        out["option_c"] = out["option_d"] = None
        out["correct_answer"], out["correct_answers"] = tf, None
    elif qt == "multi_select":
        letters = norm_letters(cas if cas not in (None, "", []) else ca)
        if not letters:
            raise RuleError("correct_answers", "correct_answers (list of option letters) is required")
        bad = [x for x in letters if x not in present]
        if bad:
            raise RuleError("correct_answers", f"correct_answers refers to missing options: {', '.join(bad)}")
        if len(present) < 2:
            raise RuleError("options", "a multi_select question needs at least two options")
        out["correct_answers"], out["correct_answer"] = list(letters), None
    elif qt == "fill_blank":
        if cas in (None, "", []):
            cas = [p for p in str(ca or "").split("|")] if ca not in (None, "") else []
        if isinstance(cas, str):
            cas = cas.split("|")
        if not isinstance(cas, list):
            raise RuleError("correct_answers", "correct_answers must be a list of accepted texts")
        texts = [str(t).strip() for t in cas if t is not None and str(t).strip()]
        if not texts:
            raise RuleError("correct_answers", "correct_answers (accepted texts) is required")
        if any(len(t) > MAX_OPTION for t in texts):
            raise RuleError("correct_answers", f"accepted texts must be at most {MAX_OPTION} characters")
        out["correct_answers"], out["correct_answer"] = texts, None
    else:  # subjective, coding: graded manually
        out["correct_answer"] = str(ca).strip() if ca not in (None, "") else None  # optional model answer
        out["correct_answers"] = None
    return out


# ------------------------------------------------------------------ CSV
def parse_csv(data: bytes) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """Pass 1 (format): decode, parse, check the header. Returns (header, [(line, row)]).

    Raises ``RuleError`` for a file that cannot be read at all."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RuleError("file", "The file is not valid UTF-8 text") from None
    if not text.strip():
        raise RuleError("file", "The file is empty")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise RuleError("file", f"The file is not valid CSV: {exc}") from None
    header = [h.strip().lower() for h in rows[0]]
    missing = [c for c in CSV_COLUMNS if c not in header]
    if missing:
        raise RuleError("file", f"Missing CSV columns: {', '.join(missing)}")
    out = []
    for i, raw in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in raw):
            continue
        row = {h: (raw[j] if j < len(raw) else "") for j, h in enumerate(header) if h}
        out.append((i, row))
    return header, out


def format_errors(line: int, row: dict[str, str], n_columns: int, raw_len: int | None = None) -> list[str]:
    errs = []
    if not (row.get("question_text") or "").strip():
        errs.append("question_text is required")
    if not (row.get("question_type") or "").strip():
        errs.append("question_type is required")
    m = (row.get("marks") or "").strip()
    if m:
        try:
            float(m)
        except ValueError:
            errs.append("marks must be a number")
    qt = (row.get("question_type") or "").strip().lower()
    if qt not in ("subjective", "coding") and not (row.get("correct_answer") or "").strip() \
            and not (row.get("correct_answers") or "").strip():
        errs.append("correct_answer is required")
    return errs


def validate_rows(rows: list[tuple[int, dict[str, str]]]) -> tuple[list[dict], list[dict]]:
    """Both passes over every row: (normalised questions, [{line, error, row_data}])."""
    good: list[dict] = []
    errors: list[dict] = []
    for line, row in rows:
        row_data = {k: row.get(k, "") for k in CSV_COLUMNS}
        ferr = format_errors(line, row, len(CSV_COLUMNS))
        if ferr:
            errors.append({"line": line, "error": "; ".join(ferr), "row_data": row_data})
            continue
        try:
            q = normalise_question({**row, "correct_answers": row.get("correct_answers") or None})
        except RuleError as exc:
            errors.append({"line": line, "error": exc.message, "row_data": row_data})
            continue
        if row.get("folder_id"):
            q["folder_id"] = row["folder_id"].strip()
        good.append(q)
    return good, errors


# ------------------------------------------------------------------ interchange formats
def validate_items(items: list) -> tuple[list[dict], list[dict]]:
    """The business rules over items parsed from an interchange format (``formats.common.Item``):
    (normalised questions, [{line, item, error}])."""
    good: list[dict] = []
    errors: list[dict] = []
    for it in items:
        try:
            good.append(normalise_question(it.fields))
        except RuleError as exc:
            errors.append({"line": it.line, "item": it.ref, "error": f"{exc.field}: {exc.message}"})
    return good, errors
