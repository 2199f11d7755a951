"""The read routes: one attempt with its paper, its saved answers, and lists (a student's
attempts, a test's attempts, a guest's own attempt). Reading an attempt past its deadline + grace
submits it first (the next-touch rule, ``submission.expire_if_due``)."""
from __future__ import annotations

from collections.abc import Mapping

from lambdakit.errors import ApiError, NotFound, ValidationFailed

from ..identity import Principal, ensure_object_tenant, ensure_self, tenant_student
from . import repository as repo
from .access import authorize, load, missing_auth, not_found
from .views import answer_view, detail, present


def get_attempt(p: Principal | None, attempt_id: str, token: str | None) -> dict:
    from ..papers import repository as trepo
    from .submission import expire_if_due  # grading: only this read submits (the lists never do)

    a, answers = repo.get_with_answers(attempt_id)
    if not a:
        raise not_found(attempt_id)
    authorize(p, a, token)
    a = expire_if_due(a, answers)
    t = trepo.get(a["test_id"])
    return detail(a, answers, t, trepo.get_paper(a["test_id"]), p)


def get_answers(p: Principal | None, attempt_id: str, token: str | None) -> list[dict]:
    a, answers = repo.get_with_answers(attempt_id)
    if not a:
        raise not_found(attempt_id)
    authorize(p, a, token)
    return [answer_view(x, a["id"]) for x in answers.values()]


def list_attempts(p: Principal | None, *, student_id: str | None, test_id: str | None, attempt_id: str | None,
                  token: str | None, page: int, limit: int, cursor: str | None,
                  have: Mapping[tuple[str, str], dict | None] | None = None) -> tuple[list[dict], int, str | None]:
    """``have``: items read with authentication (``identity.reads``): the test and its totals when there.
    A test's list reads its test with its totals; the others read tests through ``papers.repository``."""
    if p is None:
        from ..papers import repository as trepo

        if not token:
            raise missing_auth()
        if not attempt_id:
            raise ValidationFailed("Guests list their attempt with attempt_id and attempt_token",
                                   fields={"attempt_id": "Required for guests"})
        a = load(attempt_id)
        authorize(p, a, token)
        return [present(a, trepo.get(a["test_id"]), p)], 1, None
    if test_id:
        t, counted = repo.test_and_count(test_id, have=have)  # the test and its attempt totals: one call
        if not t:
            raise NotFound("Test not found", code="TEST_NOT_FOUND",
                           details={"resource_type": "test", "resource_id": test_id})
        ensure_object_tenant(p, t["client_id"])
        if p.is_student:
            raise ApiError("Students list their own attempts (student_id)", code="FORBIDDEN", status=403)
        items, nxt = repo.page_for_test(test_id, page=page, limit=limit, cursor=cursor)
        total = int(counted.get("started") or 0)
        return [present(i, t, p) for i in items], total, nxt
    sid = student_id or (p.user_id if p.is_student else None)
    if not sid:
        raise ValidationFailed("student_id or test_id is required", fields={"student_id": "Required"})
    if p.is_student:
        ensure_self(p, sid)
    elif p.is_client_admin:
        tenant_student(sid, p.client_id)  # 403: neither the list nor its total of another tenant
    from ..papers import repository as trepo

    items, nxt = repo.page_for_student(sid, page=page, limit=limit, cursor=cursor)
    if p.is_client_admin:
        items = [i for i in items if i.get("client_id") == p.client_id]
    tests = {}
    for i in items:
        if i["test_id"] not in tests:
            tests[i["test_id"]] = trepo.get(i["test_id"])
    total = int(repo.count("SATT", sid).get("started") or 0)
    return [present(i, tests.get(i["test_id"]), p) for i in items], total, nxt
