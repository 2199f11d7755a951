"""Question bank rules: create, list, CSV import (two validation passes, all-or-nothing), rollback."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lambdakit import clock, ids
from lambdakit.errors import ApiError, NotFound, ValidationFailed

from ..identity import Principal, ensure_object_tenant, tenant_scope
from . import repository as repo

if TYPE_CHECKING:
    from .rules import RuleError


def _rule_error(exc: RuleError) -> ApiError:
    if exc.code == "INVALID_QUESTION_TYPE":
        return ApiError(exc.message, code="INVALID_QUESTION_TYPE", status=400,
                        details=[{"field": exc.field, "message": exc.message}])
    return ValidationFailed(exc.message, fields={exc.field: exc.message})


def owner_client(p: Principal, client_id: str | None) -> str:
    cid = tenant_scope(p, client_id)
    if not cid:
        raise ValidationFailed("client_id is required", fields={"client_id": "Required"})
    return cid


def create(p: Principal, data: dict[str, Any]) -> dict:
    from .rules import RuleError, normalise_question  # the validation rules: only the write routes

    cid = owner_client(p, data.get("client_id"))
    try:
        q = normalise_question(data)
    except RuleError as exc:
        raise _rule_error(exc) from None
    q.update(id=ids.new_id(), client_id=cid, folder_id=data.get("folder_id") or None, import_batch_id=None,
             created_by=p.user_id, created_at=clock.now_iso())
    repo.insert([q])
    _bump(cid, questions=1)
    _audit(p, "question.create", q["id"], cid, {"question_type": q["question_type"]})
    return q


def list_questions(p: Principal, client_id: str | None, folder_id: str | None, *, page: int, limit: int,
                   cursor: str | None, have: Mapping[tuple[str, str], dict | None] | None = None
                   ) -> tuple[list[dict], int, str | None]:
    """``have``: items read with authentication (``identity.reads``): the total's item when there."""
    cid = owner_client(p, client_id)
    items, nxt = repo.page(cid, folder_id, page=page, limit=limit, cursor=cursor)
    return items, repo.count(cid, folder_id, have=have), nxt


def get_question(p: Principal, question_id: str) -> dict:
    q = repo.get(question_id)
    if not q:
        raise NotFound("Question not found", code="QUESTION_NOT_FOUND",
                       details={"resource_type": "question", "resource_id": question_id})
    ensure_object_tenant(p, q["client_id"])
    return q


def import_csv(p: Principal, data: bytes, *, client_id: str | None, folder_id: str | None,
               package_id: str | None, max_rows: int) -> dict:
    from .rules import RuleError, parse_csv, validate_rows

    cid = owner_client(p, client_id)
    try:
        _, rows = parse_csv(data)  # pass 1a: the file as a whole
    except RuleError as exc:
        raise ApiError(exc.message, code="CSV_IMPORT_VALIDATION_ERROR", status=400,
                       details=[{"line": 1, "error": exc.message, "row_data": None}]) from None
    if not rows:
        raise ApiError("The CSV file has no question rows", code="CSV_IMPORT_VALIDATION_ERROR", status=400,
                       details=[{"line": 1, "error": "No question rows", "row_data": None}])
    if len(rows) > max_rows:
        raise ApiError(f"At most {max_rows} rows per import", code="CSV_IMPORT_VALIDATION_ERROR", status=400,
                       details=[{"line": rows[max_rows][0], "error": f"More than {max_rows} rows", "row_data": None}])
    good, errors = validate_rows(rows)  # pass 1b (format) then pass 2 (business rules), per row
    if errors:
        raise ApiError(f"{len(errors)} row(s) failed validation; nothing was imported",
                       code="CSV_IMPORT_VALIDATION_ERROR", status=400, details=errors)
    return commit_import(p, cid, good, folder_id=folder_id, package_id=package_id, total=len(rows))


def commit_import(p: Principal, cid: str, good: list[dict], *, folder_id: str | None, package_id: str | None,
                  total: int, warnings: list[dict] | None = None) -> dict:
    """Pass 2, file level (plan or package question limits), then the all-or-nothing write of
    validated questions as one import batch: shared by CSV and the interchange formats."""
    from ..billing.guards import check_question_capacity, entitlement_for

    ent = entitlement_for(cid, package_id)
    check_question_capacity(cid, ent, len(good))
    batch_id = ids.new_id()
    now = clock.now_iso()
    for q in good:
        q.update(id=ids.new_id(), client_id=cid, folder_id=q.get("folder_id") or folder_id or None,
                 import_batch_id=batch_id, created_by=p.user_id, created_at=now)
    repo.insert(good, manifest={"id": batch_id, "client_id": cid, "count": len(good), "state": "committed",
                                "created_by": p.user_id, "created_at": now})
    _bump(cid, questions=len(good))
    _audit(p, "question.import", batch_id, cid, {"count": len(good)})
    out = {"import_batch_id": batch_id, "imported": len(good), "total_rows": total, "errors": []}
    if warnings is not None:
        out["warnings"] = warnings
    return out


def rollback(p: Principal, batch_id: str) -> dict:
    manifest = repo.batch_manifest(batch_id)
    if not manifest:
        raise NotFound("Import batch not found", details={"resource_type": "import_batch", "resource_id": batch_id})
    ensure_object_tenant(p, manifest["client_id"])
    from lambdakit.errors import ConditionFailed

    try:
        repo.begin_rollback(batch_id, clock.now_iso())
    except ConditionFailed:
        raise ApiError("This import batch was already rolled back", code="STATE_CONFLICT", status=409,
                       details={"expected_state": "committed", "actual_state": manifest.get("state")}) from None
    questions = repo.batch_questions(batch_id)
    deleted = repo.delete_existing(questions)
    repo.finish_rollback(batch_id, clock.now_iso(), deleted)
    if deleted:
        _bump(manifest["client_id"], questions=-deleted)
    _audit(p, "question.import_rollback", batch_id, manifest["client_id"], {"deleted": deleted})
    return {"import_batch_id": batch_id, "deleted": deleted}


def _bump(client_id: str, **deltas: int) -> None:
    from ..stats import counters

    counters.bump(client_id, **deltas)


def _audit(p: Principal, action: str, entity_id: str, client_id: str, metadata: dict) -> None:
    from ..audit.writer import record

    record(action, action.split(".")[0], entity_id, user_id=p.user_id, client_id=client_id, metadata=metadata)
