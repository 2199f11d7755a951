"""Test rules: create (billing checks), read, update (read-only once published), publish
(snapshot of paper and answer key), archive, delete, clone, share-code lookup."""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from lambdakit import clock, ids
from lambdakit.errors import ApiError, ConditionFailed, NotFound, Unauthorized, ValidationFailed

from ..identity import Principal, ensure_object_tenant, forbidden, tenant_scope
from ..settings import settings
from . import repository as repo

SHARE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L
SHARE_RE = re.compile(f"^[{SHARE_ALPHABET}]{{8}}$")
POST_PUBLISH_EDITABLE = frozenset({"status", "result_status"})
#: What a clone does not copy from its source: who it is, its name, its state and the server's own
#: fields; every other settable field (``models.TestFields``) is copied.
NOT_CLONED = frozenset({"test_name", "status", "result_status"})


# ------------------------------------------------------------------ errors
def test_not_found(test_id: str) -> ApiError:
    return NotFound("Test not found", code="TEST_NOT_FOUND", details={"resource_type": "test", "resource_id": test_id})


def bad_config(reason: str, message: str | None = None) -> ApiError:
    return ApiError(message or f"Invalid test configuration: {reason}", code="INVALID_TEST_CONFIGURATION", status=400,
                    details={"reason": reason})


def state_conflict(expected: str, actual: str) -> ApiError:
    return ApiError(f"Test is {actual}; this operation needs {expected}", code="STATE_CONFLICT", status=409,
                    details={"expected_state": expected, "actual_state": actual})


# ------------------------------------------------------------------ validation
def _parse_time(name: str, value: str | None) -> str | None:
    if value is None or value == "":
        return None
    try:
        return clock.iso(clock.parse_iso(value))
    except (ValueError, TypeError):
        raise ValidationFailed(f"{name} must be an ISO 8601 timestamp", fields={name: "Invalid timestamp"}) from None


def validate_config(t: dict) -> None:
    """Rules across fields. Raises INVALID_TEST_CONFIGURATION with ``details.reason``."""
    timer = t.get("timer")
    if timer is None or int(timer) < 5:
        raise bad_config("timer_below_minimum", "timer must be at least 5 minutes")
    if int(timer) > 24 * 60:
        raise bad_config("timer_above_maximum", "timer must be at most 1440 minutes")
    if t.get("scheduled_start") and t.get("scheduled_end") and \
            clock.parse_iso(t["scheduled_end"]) <= clock.parse_iso(t["scheduled_start"]):
        raise bad_config("schedule_end_before_start", "scheduled_end must be after scheduled_start")
    if t.get("timezone"):
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(t["timezone"])
        except (ZoneInfoNotFoundError, ValueError):
            raise bad_config("invalid_timezone", "timezone must be an IANA name such as Asia/Kolkata") from None
    secs = t.get("sections") or []
    if secs:
        if t.get("question_ids"):
            raise bad_config("question_ids_and_sections", "Use either question_ids or sections, not both")
        timed = [bool(s.get("duration_minutes")) for s in secs]
        if any(timed) and not all(timed):
            raise bad_config("mixed_section_timing", "Either every section has duration_minutes or none has")
        seen_ids: set[str] = set()
        for s in secs:
            if s["id"] in seen_ids:
                raise bad_config("duplicate_section_id")
            seen_ids.add(s["id"])
    from .models import MAX_TEST_QUESTIONS

    qids = all_question_ids(t)
    if len(qids) > MAX_TEST_QUESTIONS:
        raise ApiError(f"A test holds at most {MAX_TEST_QUESTIONS} questions (all sections together)",
                       code="INVALID_TEST_CONFIGURATION", status=400,
                       details={"reason": "too_many_questions", "limit": MAX_TEST_QUESTIONS, "requested": len(qids)})
    if len(qids) != len(set(qids)):
        raise bad_config("duplicate_question", "A question appears more than once in the test")


def all_question_ids(t: dict) -> list[str]:
    if t.get("sections"):
        return [q for s in t["sections"] for q in s.get("question_ids") or []]
    return list(t.get("question_ids") or [])


def _normalise_sections(sections: list[dict] | None) -> list[dict] | None:
    if sections is None:
        return None
    out = []
    for i, s in enumerate(sections):
        d = dict(s)
        d["id"] = d.get("id") or f"s{i + 1}"
        d["title"] = d.get("title") or f"Section {i + 1}"
        out.append(d)
    return out


def _check_questions(p: Principal, client_id: str, qids: list[str]) -> dict[str, dict]:
    from ..questions import repository as qrepo

    if not qids:
        return {}
    got = qrepo.get_many(qids)
    foreign = [q for q in qids if q in got and got[q].get("client_id") != client_id]
    if foreign:  # the spec's cross-tenant rule (issue 32 item 6; issue 17 had asked for 404)
        raise forbidden("Some questions belong to another organisation",
                        "TENANT_MISMATCH" if p.is_super_admin else "BOLA_VIOLATION")
    found = {k: q for k, q in got.items() if q.get("client_id") == client_id}
    missing = [q for q in qids if q not in found]
    if missing:
        raise ApiError("Some questions do not exist", code="QUESTION_NOT_FOUND", status=404,
                       details={"resource_type": "question", "resource_id": missing[0], "missing": missing[:50]})
    return found


# ------------------------------------------------------------------ create / clone
def _new_share_code() -> str:
    return ids.random_code(8, SHARE_ALPHABET)


def _insert_with_share_code(t: dict) -> dict:
    for _ in range(6):
        t["share_code"] = _new_share_code()
        try:
            repo.create(t)
            return t
        except ConditionFailed as exc:
            if exc.reasons and exc.reasons[0] == "ConditionalCheckFailed":  # id clash: not retryable
                raise ApiError("Test already exists", code="ALREADY_EXISTS", status=409) from None
    raise ApiError("Could not allocate a unique share code; retry", code="SERVER_ERROR", status=500)


def create(p: Principal, data: dict[str, Any]) -> dict:
    cid = tenant_scope(p, data.get("client_id"))
    if not cid:
        raise ValidationFailed("client_id is required", fields={"client_id": "Required"})
    s = settings()
    now = clock.now_iso()
    t = {k: v for k, v in data.items() if v is not None and k not in ("client_id", "status", "result_status")}
    t["sections"] = _normalise_sections(t.get("sections"))
    t["scheduled_start"] = _parse_time("scheduled_start", t.get("scheduled_start"))
    t["scheduled_end"] = _parse_time("scheduled_end", t.get("scheduled_end"))
    t.setdefault("shuffle", 0)
    t.setdefault("shuffle_options", 0)
    t.setdefault("allow_review", 1)
    t.setdefault("negative_marking", 0)
    t.setdefault("negative_marks_ratio", s.default_negative_marks_ratio)
    t.setdefault("allow_guests", False)
    t.setdefault("show_results_after_submission", False)
    t.setdefault("attempts_allowed", 0)
    t.setdefault("camera_required", False)
    t.setdefault("passing_percentage", s.default_passing_percentage)
    t.setdefault("active_status", 1)
    t.setdefault("question_ids", [] if not t.get("sections") else None)
    validate_config(t)
    qids = all_question_ids(t)
    _check_questions(p, cid, qids)
    test_id = ids.new_id()
    from ..billing.guards import check_question_capacity, release_test_creation, reserve_test_creation

    ent = reserve_test_creation(cid, t.get("package_id"), test_id)
    try:
        if qids:
            check_question_capacity(cid, ent, len(qids))
        t.update(id=test_id, client_id=cid, status="draft", result_status="pending", created_by=p.user_id,
                 created_at=now, updated_at=now, version=0, candidate_count=0, question_count=len(qids),
                 billing_source=ent.source, package_id=ent.package_id or t.get("package_id"),
                 max_candidates=ent.max_candidates, max_questions=ent.max_questions)
        t = {k: v for k, v in t.items() if v is not None}
        _insert_with_share_code(t)
    except Exception:
        release_test_creation(cid, ent, test_id)
        raise
    _bump(cid, tests=1)
    _audit(p, "test.create", t["id"], cid, {"test_name": t["test_name"], "billing": ent.source})
    return present(t)


def clone(p: Principal, test_id: str, name: str | None, package_id: str | None) -> dict:
    from .models import TestFields

    src = load(p, test_id)
    data = {k: v for k, v in src.items() if k in TestFields.model_fields and k not in NOT_CLONED}
    data["test_name"] = name or f"Copy of {src['test_name']}"[:300]
    data["client_id"] = src["client_id"]
    data["package_id"] = package_id
    if p.is_super_admin:
        raise ApiError("Only client admins create tests", code="FORBIDDEN", status=403)
    out = create(p, data)
    _audit(p, "test.clone", out["id"], src["client_id"], {"source_test_id": test_id})
    return out


# ------------------------------------------------------------------ read
def load(p: Principal | None, test_id: str, *, consistent: bool = False) -> dict:
    t = repo.get(test_id, consistent=consistent)
    if not t:
        raise test_not_found(test_id)
    if t.get("deleted_at"):
        raise ApiError("Test was deleted", code="RESOURCE_DELETED", status=410,
                       details={"resource_type": "test", "resource_id": test_id})
    if p is not None:
        ensure_object_tenant(p, t["client_id"])
    return t


# ------------------------------------------------------------------ views (models.Test*View)
def present(t: dict) -> dict:
    """``TestAdminView``: the stored test as its admins see it (a field never set stays absent)."""
    from lambdakit.model import dump

    from .models import TestAdminView

    return dump(TestAdminView, t, exclude_unset=True)


def _taker_data(t: dict) -> dict:
    return {**t, "question_count": t.get("question_count") or len(all_question_ids(t)),
            "sections": [{**s, "question_count": len(s.get("question_ids") or [])} for s in t.get("sections") or []]}


def public_view(t: dict) -> dict:
    """``TestStudentView``: a published test as a student sees it."""
    from lambdakit.model import dump

    from .models import TestStudentView

    return dump(TestStudentView, _taker_data(t))


def share_view(t: dict) -> dict:
    """``TestShareView``: the test of a share code, for anyone holding the code."""
    from lambdakit.model import dump

    from .models import TestShareView

    return dump(TestShareView, _taker_data(t))


def for_attempt(t: dict):
    """``TestAttemptView``: the test's fields an attempt's start and detail answers carry."""
    from .models import TestAttemptView

    return TestAttemptView.model_validate(t)


def key_and_test(test_id: str) -> tuple[dict | None, dict | None]:
    """The answer key (``{"keys": ...}``) and the stored test, for starting an attempt: one query
    (``repository.key_and_meta``); the attempts domain does not read this domain's items itself."""
    return repo.key_and_meta(test_id)


def get_for(p: Principal, test_id: str) -> dict:
    t = load(p, test_id)
    if p.is_student:
        if t["status"] != "published":
            raise test_not_found(test_id)
        return public_view(t)
    return present(t)


def by_share_code(code: str) -> dict:
    code = (code or "").strip().upper()
    if not SHARE_RE.match(code):
        raise NotFound("Unknown share code", code="INVALID_SHARE_CODE")
    ref = repo.by_share_code(code)
    t = repo.get(ref["test_id"]) if ref else None
    if not t or t.get("deleted_at"):
        raise NotFound("Unknown share code", code="INVALID_SHARE_CODE")
    return share_view(t)


def list_tests(p: Principal | None, *, client_id: str | None, status: str | None, folder_id: str | None,
               page: int, limit: int, cursor: str | None,
               have: Mapping[tuple[str, str], dict | None] | None = None) -> tuple[list[dict], int, str | None]:
    """``have``: items read with authentication (``identity.reads``): the total's item when there."""
    if p is None:
        raise Unauthorized("Authorization bearer token is required (or use share_code)", code="MISSING_AUTH_TOKEN")
    if status and status not in ("draft", "published", "archived"):
        raise ValidationFailed("status must be draft, published or archived", fields={"status": "Invalid status"})
    cid = tenant_scope(p, client_id)
    if not cid:
        raise ValidationFailed("client_id is required", fields={"client_id": "Required for super admins"})
    if p.is_student:
        status = "published"
    items, nxt = repo.page(cid, status, folder_id, page=page, limit=limit, cursor=cursor)
    total = repo.count(cid, status, folder_id, have=have)
    return [public_view(i) if p.is_student else present(i) for i in items], total, nxt


# ------------------------------------------------------------------ update / publish / delete
def update(p: Principal, test_id: str, changes: dict[str, Any]) -> dict:
    t = load(p, test_id, consistent=True)
    changes = {k: v for k, v in changes.items() if v is not None}
    if not changes:
        return present(t)
    status = t["status"]
    if status != "draft":
        blocked = sorted(set(changes) - POST_PUBLISH_EDITABLE)
        if blocked:
            raise ApiError(f"A {status} test is read-only", code="TEST_READ_ONLY", status=400,
                           details={"fields": blocked, "status": status})
    if changes.get("status") == "published" and status == "draft":
        rest = {k: v for k, v in changes.items() if k != "status"}
        if rest:
            update(p, test_id, rest)
        return publish(p, test_id)
    new_status = changes.get("status", status)
    if new_status != status:
        if not (new_status == "archived" and status in ("draft", "published")):
            raise state_conflict("draft" if new_status == "published" else "published", status)
    if "result_status" in changes and changes["result_status"] != t.get("result_status"):
        if not (t.get("result_status", "pending") == "pending" and changes["result_status"] == "published"):
            raise state_conflict("pending", t.get("result_status", "pending"))
    if status == "draft":
        if "sections" in changes:
            changes["sections"] = _normalise_sections(changes["sections"])
            changes.setdefault("question_ids", None)
        if changes.get("question_ids"):
            changes.setdefault("sections", None)
        for k in ("scheduled_start", "scheduled_end"):
            if k in changes:
                changes[k] = _parse_time(k, changes[k])
        merged = {**t, **changes}
        validate_config(merged)
        qids = all_question_ids(merged)
        if "question_ids" in changes or "sections" in changes:
            _check_questions(p, t["client_id"], qids)
            if qids:
                from ..billing.guards import check_question_capacity

                check_question_capacity(t["client_id"], _entitlement(t), len(qids))
            changes["question_count"] = len(qids)
    changes["updated_at"] = clock.now_iso()
    try:
        new = repo.update_fields(t, changes, expected_status=status, expected_version=int(t.get("version") or 0))
    except ConditionFailed:
        raise ApiError("The test changed concurrently; reload and retry", code="CONFLICT", status=409) from None
    _audit(p, "test.update", test_id, t["client_id"], {"fields": sorted(changes)})
    if new_status != status:
        _audit(p, "test.archive", test_id, t["client_id"], {"from": status})
    return present(new)


def _entitlement(t: dict):
    from ..billing.guards import entitlement_for

    return entitlement_for(t["client_id"], t.get("package_id") if t.get("billing_source") == "package" else None)


def publish(p: Principal, test_id: str) -> dict:
    from ..questions import repository as qrepo
    from .models import MAX_TEST_QUESTIONS

    t = load(p, test_id, consistent=True)
    if t["status"] != "draft":
        raise state_conflict("draft", t["status"])
    qids = all_question_ids(t)
    built = None
    if not qids and not t.get("sections") and t.get("folder_id"):  # spec: folder_id "Question folder"
        built = qids = qrepo.folder_question_ids(t["client_id"], t["folder_id"], MAX_TEST_QUESTIONS + 1)
        if len(qids) > MAX_TEST_QUESTIONS:
            raise ApiError(f"The folder holds more than {MAX_TEST_QUESTIONS} questions; choose question_ids",
                           code="INVALID_TEST_CONFIGURATION", status=400,
                           details={"reason": "too_many_questions", "limit": MAX_TEST_QUESTIONS})
    if not qids:
        raise bad_config("no_questions", "A test needs at least one question before it is published")
    questions = qrepo.get_many(qids)
    missing = [q for q in qids if q not in questions]
    if missing:
        raise bad_config("missing_questions", f"{len(missing)} question(s) of this test no longer exist")
    from ..billing.guards import check_question_capacity
    from ..grading import key_for_question

    check_question_capacity(t["client_id"], _entitlement(t), len(qids))
    key: dict[str, dict] = {}
    paper: list[dict] = []
    negative = bool(t.get("negative_marking"))
    base_ratio = float(t.get("negative_marks_ratio", settings().default_negative_marks_ratio))
    sections = t.get("sections") or [{"id": "main", "question_ids": qids, "negative_marks_ratio": None}]
    for s in sections:
        ratio = s.get("negative_marks_ratio")
        ratio = base_ratio if ratio is None else float(ratio)
        for qid in s.get("question_ids") or []:
            q = questions[qid]
            key[qid] = key_for_question(q, negative_ratio=ratio if negative else 0.0, section_id=s["id"]).to_item()
            paper.append({k: q.get(k) for k in ("id", "question_text", "question_type", "option_a", "option_b",
                                                "option_c", "option_d", "marks", "difficulty")})
    now = clock.now_iso()
    try:
        new = repo.publish(t, key, paper, now, question_ids=built)
    except ConditionFailed:
        cur = repo.get(test_id, consistent=True) or t
        raise state_conflict("draft", cur["status"]) from None
    _bump(t["client_id"], tests_published=1)
    _audit(p, "test.publish", test_id, t["client_id"], {"questions": len(qids)})
    return present(new)


def delete(p: Principal, test_id: str) -> dict:
    t = load(p, test_id, consistent=True)
    if t["status"] == "published":
        raise ApiError("Archive a published test before deleting it", code="STATE_CONFLICT", status=409,
                       details={"expected_state": "archived", "actual_state": "published"})
    try:
        repo.soft_delete(t, clock.now_iso())
    except ConditionFailed:
        raise ApiError("The test changed concurrently; reload and retry", code="CONFLICT", status=409) from None
    _bump(t["client_id"], tests=-1)
    _audit(p, "test.delete", test_id, t["client_id"], {"status": t["status"]})
    return {"id": test_id, "deleted": True}


def _bump(client_id: str, **deltas: int) -> None:
    from ..stats import counters

    counters.bump(client_id, **deltas)


def _audit(p: Principal, action: str, entity_id: str, client_id: str, metadata: dict) -> None:
    from ..audit.writer import record

    record(action, "test", entity_id, user_id=p.user_id, client_id=client_id, metadata=metadata)
