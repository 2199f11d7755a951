"""Question banks in and out in Moodle XML, GIFT, Aiken and QTI 3.0 (issue 34).

Import: the format's parser maps every item onto our fields or reports it (pass 1), the shared
rules validate each mapped item (pass 2), and ``service.commit_import`` writes all or nothing, with
the CSV import's limits, tenant and folder rules. Export: a folder of the bank, or a test's
questions (``papers.handler``), in one format. docs/exams-interchange.md."""
from __future__ import annotations

import re

from lambdakit.errors import ApiError, ValidationFailed

from ..identity import Principal
from . import repository as repo
from . import service

IMPORT_ERROR = "IMPORT_VALIDATION_ERROR"
IMPORT_FORMATS = ("csv", "moodle_xml", "gift", "aiken", "qti3")


def import_format(value: str | None) -> str:
    fmt = (value or "csv").strip().lower()
    if fmt not in IMPORT_FORMATS:
        raise ValidationFailed(f"format must be one of {', '.join(IMPORT_FORMATS)}",
                               fields={"format": f"One of {', '.join(IMPORT_FORMATS)}"})
    return fmt


def export_format(value: str | None) -> str:
    from .formats import FORMATS

    fmt = (value or "").strip().lower()
    if fmt not in FORMATS:
        raise ValidationFailed(f"format must be one of {', '.join(FORMATS)}",
                               fields={"format": f"Required: one of {', '.join(FORMATS)}"})
    return fmt


def import_file(p: Principal, data: bytes, fmt: str, *, client_id: str | None, folder_id: str | None,
                package_id: str | None, max_rows: int) -> dict:
    from .formats import parse
    from .formats.common import FormatError
    from .rules import validate_items

    cid = service.owner_client(p, client_id)
    try:
        parsed = parse(fmt, data)  # pass 1: the file, then each item mapped onto our types
    except FormatError as exc:
        raise ApiError(exc.message, code=IMPORT_ERROR, status=400,
                       details=[{"line": exc.line, "item": None, "error": exc.message}]) from None
    total = len(parsed.items) + len(parsed.errors)
    if total > max_rows:
        over = sorted([*(i.line for i in parsed.items), *(e["line"] for e in parsed.errors)])[max_rows]
        raise ApiError(f"At most {max_rows} questions per import", code=IMPORT_ERROR, status=400,
                       details=[{"line": over, "item": None, "error": f"More than {max_rows} questions"}])
    good, errors = validate_items(parsed.items)  # pass 2: the business rules, per item
    errors = sorted([*parsed.errors, *errors], key=lambda e: e["line"])
    if errors:
        raise ApiError(f"{len(errors)} question(s) failed validation; nothing was imported",
                       code=IMPORT_ERROR, status=400, details=errors)
    warnings = [{"line": i.line, "item": i.ref, "warning": w} for i in parsed.items for w in i.warnings]
    return service.commit_import(p, cid, good, folder_id=folder_id, package_id=package_id, total=total,
                                 warnings=warnings)


def _render(fmt: str, questions: list[dict], title: str) -> tuple[bytes, str, str]:
    from .formats import export
    from .formats.common import Unexportable

    try:
        body, ctype, ext = export(fmt, questions, title=title)
    except Unexportable as exc:
        raise ApiError(f"{exc}; nothing was exported", code="EXPORT_NOT_REPRESENTABLE", status=422,
                       details=exc.problems) from None
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", title).strip("-")[:60] or "questions"
    return body, ctype, f"{stem}.{ext}"


def export_folder(p: Principal, client_id: str | None, folder_id: str | None, fmt: str, *,
                  max_questions: int) -> tuple[bytes, str, str]:
    """A folder of the tenant's bank (or the whole bank), at most ``max_questions`` (the import
    limit: what is exported can be imported back)."""
    cid = service.owner_client(p, client_id)
    if repo.count(cid, folder_id) > max_questions:
        raise ApiError(f"More than {max_questions} questions: export one folder at a time", code="EXPORT_TOO_LARGE",
                       status=400, details={"max_questions": max_questions})
    questions: list[dict] = []
    cursor = None
    while True:
        items, cursor = repo.page(cid, folder_id, page=1, limit=200, cursor=cursor)
        questions.extend(items)
        if not cursor or len(questions) > max_questions:
            break
    return _render(fmt, questions[:max_questions], folder_id or "question-bank")


def export_test(t: dict, question_ids: list[str], fmt: str) -> tuple[bytes, str, str]:
    """A test's questions in the test's order (the caller loaded the test with its tenant check);
    a test still to be built from its folder: that folder's questions, as publishing would take them."""
    cid = t["client_id"]
    if not question_ids and t.get("folder_id"):
        question_ids = repo.folder_question_ids(cid, t["folder_id"], 500)
    found = repo.get_many(question_ids) if question_ids else {}
    questions = [found[q] for q in question_ids if q in found and found[q]["client_id"] == cid]
    return _render(fmt, questions, str(t.get("test_name") or t["id"]))
