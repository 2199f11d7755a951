"""Attempt routes: start, read, list, answers (batch and single), submit (both routes), manual grades."""
from __future__ import annotations

import json

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import ValidationFailed
from lambdakit.http import client_ip, cookies, header, json_object, parse_model, query, safe_json_loads
from lambdakit.openapi import doc
from lambdakit.pagination import page_meta, page_request

from ..http import build_app, lambda_entry, ok, paginated
from ..identity import CLIENT_ADMIN, SUPER_ADMIN, identity, optional_auth, principal, require, signed_in
from ..identity.reads import RouteRequest, declare, read_with_auth
from . import reads

# Each route imports the use-case modules only it needs (start, answers, submission, grades, the
# guest policy): a cold process serving one route does not import the others' (issue 21).
router = APIGatewayHttpRouter()


def attempt_token() -> str | None:
    return query(router, "attempt_token") or header(router, "x-attempt-token")


@router.post("/api/attempts", summary="Start an attempt (student: test_id + student_id; guest: share_code, optional guest_name)",
             middlewares=[optional_auth],
             description="Students start their own attempt; client admins and super admins start one for a "
                         "student of the test's tenant (`student_id` required; another tenant's student is 403 "
                         "`BOLA_VIOLATION`/`TENANT_MISMATCH`, an unknown id 404 `STUDENT_NOT_FOUND`). "
                         "Guests: `share_code` (required; `test_id` optional and then checked against it) and "
                         "an optional `guest_name` (default `Guest`); send back the `guest_token` of an earlier start "
                         "in the `X-Guest-Token` header (or the `exam_guest` cookie). One guest attempt in "
                         "progress per guest identity (409 `GUEST_ATTEMPT_IN_PROGRESS`), `attempts_allowed` per "
                         "identity, guest start rates per share code and per share code per IP (429), and a "
                         "guest takes a candidate slot on its first saved answer (docs/exams-delivery.md).",
             openapi_extensions=doc(body="exams.attempts.models:StartIn",
                                    response="exams.attempts.models:AttemptStartView", status=201, errors=(409, 410, 503)))
def start_attempt():
    from . import start
    from .guests import COOKIE as GUEST_COOKIE
    from .guests import GuestClient
    from .guests import cookie as guest_cookie
    from .models import StartIn

    body = parse_model(StartIn, json_object(router))
    p = principal(router)
    client = None
    if p is None and not body.share_code and identity(router) is None:
        from .access import missing_auth  # no bearer token and no share code: nothing presented

        raise missing_auth("a guest's share_code")
    if p is None:
        client = GuestClient(header(router, "x-guest-token") or cookies(router).get(GUEST_COOKIE) or None,
                             client_ip(router), header(router, "user-agent") or "")
    out = start.start(p, body.model_dump(), client)
    jar = [guest_cookie(out["guest_token"])] if out.get("guest_token") else None
    return ok(out, "Attempt started", 201, cookies=jar)


@router.get("/api/tests/<testId>/guests", summary="Guests of a test (owner: client admin of its tenant, super admin)",
            middlewares=[require(SUPER_ADMIN, CLIENT_ADMIN)],
            description="One row per guest identity: name, attempts started, whether it holds a candidate slot "
                        "(it saved an answer), first/last start and its last attempt id. Added route.",
            openapi_extensions=doc(query="exams.apidoc:CursorPageQuery", response="exams.attempts.models:GuestOut",
                                   paginated=True, errors=(503,)))
def test_guests(testId: str):
    from . import guests

    req = page_request(query(router, "page"), query(router, "limit"), default_limit=20, max_limit=100)
    items, total, nxt = guests.list_guests(signed_in(router), testId, page=req.page, limit=req.limit,
                                           cursor=query(router, "cursor"))
    return paginated(items, page_meta(req, total), next_cursor=nxt)


@router.get("/api/attempts", summary="List attempts (student_id, or test_id for admins)", middlewares=[optional_auth],
            openapi_extensions=doc(query="exams.attempts.models:AttemptListQuery", response="exams.attempts.models:AttemptView", paginated=True, errors=(503,)))
def list_attempts():
    req = page_request(query(router, "page"), query(router, "limit"), default_limit=20, max_limit=100)
    items, total, nxt = reads.list_attempts(
        principal(router), student_id=query(router, "student_id"), test_id=query(router, "test_id"),
        attempt_id=query(router, "attempt_id"), token=attempt_token(), page=req.page, limit=req.limit,
        cursor=query(router, "cursor"), have=read_with_auth(router))
    return paginated(items, page_meta(req, total), next_cursor=nxt)


@router.get("/api/attempts/<attemptId>", summary="An attempt with its questions (no answer keys), deadline and saved answers",
            middlewares=[optional_auth],
            openapi_extensions=doc(query="exams.apidoc:AttemptTokenQuery", response="exams.attempts.models:AttemptDetailView", errors=(503,)))
def get_attempt(attemptId: str):
    return ok(reads.get_attempt(principal(router), attemptId, attempt_token()))


@router.post("/api/attempt-answers", summary="Save a batch of answers (idempotent upsert)", middlewares=[optional_auth],
             description="Body: an array of {attempt_id, question_id, selected_option, marked_for_review} "
                         "(one attempt per batch, at most 99 entries); `{answers: [...]}` and a single bare "
                         "entry are accepted too.",
             openapi_extensions=doc(body="exams.attempts.models:BatchAnswers", query="exams.apidoc:AttemptTokenQuery", response="exams.attempts.models:SaveResult", errors=(409, 503)))
def save_batch():
    from . import answers
    from .models import BatchAnswer

    ev = router.current_event
    raw: str | bytes | None = ev.body
    if ev.is_base64_encoded and raw:
        import base64

        raw = base64.b64decode(raw)
    data = safe_json_loads(raw)
    if isinstance(data, dict) and isinstance(data.get("answers"), list):
        data = data["answers"]
    elif isinstance(data, dict) and "attempt_id" in data and "question_id" in data:
        data = [data]  # one answer sent bare: a batch of one
    if not isinstance(data, list):
        raise ValidationFailed("Body must be an array of answers", fields={"body": "Must be an array"})
    entries = [parse_model(BatchAnswer, d) for d in data]
    if not entries:
        raise ValidationFailed("At least one answer is required", fields={"body": "Empty batch"})
    attempt_ids = {e.attempt_id for e in entries}
    if len(attempt_ids) != 1:
        raise ValidationFailed("All answers of a batch must belong to one attempt", fields={"attempt_id": "Mixed"})
    payload = []
    for e in entries:
        d = {"question_id": e.question_id, "marked_for_review": e.marked_for_review, "time_spent": e.time_spent}
        if "selected_option" in e.model_fields_set:
            d["answer"] = e.selected_option
        payload.append(d)
    return ok(answers.save_answers(principal(router), attempt_ids.pop(), attempt_token(), payload), "Answers saved")


@router.get("/api/attempt-answers/<attemptId>", summary="Saved answers of an attempt", middlewares=[optional_auth],
            openapi_extensions=doc(query="exams.apidoc:AttemptTokenQuery", response="exams.attempts.models:SavedAnswers", errors=(503,)))
def get_answers(attemptId: str):
    return ok(reads.get_answers(principal(router), attemptId, attempt_token()))


@router.post("/api/attempts/<attemptId>/answers", summary="Save one answer (idempotent upsert)",
             middlewares=[optional_auth],
             openapi_extensions=doc(body="exams.attempts.models:SingleAnswer", query="exams.apidoc:AttemptTokenQuery", response="exams.attempts.models:SaveResult", errors=(409, 503)))
def save_one(attemptId: str):
    from . import answers
    from .models import SingleAnswer

    body = parse_model(SingleAnswer, json_object(router))
    d = {"question_id": body.question_id, "marked_for_review": body.marked_for_review, "time_spent": body.time_spent}
    if "student_answer" in body.model_fields_set:
        d["answer"] = body.student_answer
    return ok(answers.save_answers(principal(router), attemptId, attempt_token(), [d]), "Answer saved")


@router.post("/api/rpc/submit-attempt", summary="Submit and grade an attempt (first call only)",
             middlewares=[optional_auth],
             openapi_extensions=doc(body="exams.attempts.models:SubmitIn", query="exams.apidoc:AttemptTokenQuery", response="exams.attempts.models:AttemptView", errors=(409, 503)))
def submit_rpc():
    from . import submission
    from .models import SubmitIn

    body = parse_model(SubmitIn, json_object(router))
    return ok(submission.submit(principal(router), body.attempt_id, attempt_token(), client_time_taken=body.time_taken),
              "Attempt submitted")


@router.post("/api/attempts/<attemptId>/submit", summary="Submit and grade an attempt (first call only)",
             middlewares=[optional_auth],
             openapi_extensions=doc(body="exams.attempts.models:SubmitBody", body_optional=True, query="exams.apidoc:AttemptTokenQuery", response="exams.attempts.models:AttemptView", errors=(409, 503)))
def submit(attemptId: str):
    from . import submission
    from .models import SubmitBody

    body = parse_model(SubmitBody, json_object(router, required=False))
    return ok(submission.submit(principal(router), attemptId, attempt_token(), client_time_taken=body.time_taken),
              "Attempt submitted")


@router.put("/api/attempts/<attemptId>/grades", summary="Grade subjective/coding answers (client admin)",
            middlewares=[require(SUPER_ADMIN, CLIENT_ADMIN)],
            description="Body {grades: [{question_id, marks}]}; updates the score. Added route.",
            openapi_extensions=doc(body="exams.attempts.models:GradesIn", response="exams.attempts.models:AttemptGradesView", errors=(409, 503)))
def grades(attemptId: str):
    from . import grades as grades_
    from .models import GradesIn

    body = parse_model(GradesIn, json_object(router))
    return ok(grades_.set_grades(signed_in(router), attemptId, [g.model_dump() for g in body.grades]),
              "Grades saved")


def _test_and_totals(req: RouteRequest) -> list[tuple[str, str]]:
    """An admin's list by test: the test and its attempt totals (the route checks the test's tenant
    and the caller's role on the item it gets)."""
    from . import repository

    tid = req.arg("test_id")
    return repository.test_and_count_keys(tid) if tid else []


declare("GET /api/attempts", _test_and_totals)

app = build_app(router)
lambda_handler = lambda_entry(app)
_ = json
