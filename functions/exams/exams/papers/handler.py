"""Test routes: list / share-code lookup, CRUD, publish, clone, export of the questions."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import file_response, json_object, parse_model, query
from lambdakit.openapi import doc
from lambdakit.pagination import page_meta, page_request

from ..http import build_app, lambda_entry, ok, paginated
from ..identity import CLIENT_ADMIN, STUDENT, SUPER_ADMIN, optional_auth, principal, require, signed_in
from ..identity.reads import RouteRequest, count_key, declare, read_with_auth
from . import service

router = APIGatewayHttpRouter()
ADMINS = (SUPER_ADMIN, CLIENT_ADMIN)


@router.get("/api/tests", summary="List tests, or look one up by share code (public)", middlewares=[optional_auth],
            description="Paginated tests. With `share_code` (no token needed): the one test of that code, its "
                        "public fields only, as a page of one (404 INVALID_SHARE_CODE for an unknown code). "
                        "Otherwise the tests of a tenant (client_id required for super admins; filters status, "
                        "folder_id; page, limit, cursor).",
            openapi_extensions=doc(query="exams.papers.models:TestListQuery", response="exams.papers.models:TestOut",
                                   paginated=True, errors=(503,)))
def list_tests():
    code = query(router, "share_code")
    req = page_request(query(router, "page"), query(router, "limit"), default_limit=20, max_limit=100)
    if code is not None:  # the spec's "Paginated tests" also for the share-code lookup: a page of one
        found = service.by_share_code(code)
        return paginated([found] if req.page == 1 else [], page_meta(req, 1), next_cursor=None)
    items, total, nxt = service.list_tests(principal(router), client_id=query(router, "client_id"),
                                           status=query(router, "status"), folder_id=query(router, "folder_id"),
                                           page=req.page, limit=req.limit, cursor=query(router, "cursor"),
                                           have=read_with_auth(router))
    return paginated(items, page_meta(req, total), next_cursor=nxt)


@router.post("/api/tests", summary="Create a draft test (billing checks run)", middlewares=[require(CLIENT_ADMIN)],
             openapi_extensions=doc(body="exams.papers.models:TestCreate", response="exams.papers.models:TestAdminView", status=201, errors=(409, 503)))
def create_test():
    from .models import TestCreate

    body = parse_model(TestCreate, json_object(router))
    return ok(service.create(signed_in(router), body.model_dump()), "Test created", 201)


@router.get("/api/tests/<testId>", summary="Get a test", middlewares=[require(SUPER_ADMIN, CLIENT_ADMIN, STUDENT)],
            openapi_extensions=doc(response="exams.papers.models:TestOut", errors=(410, 503)))
def get_test(testId: str):
    return ok(service.get_for(signed_in(router), testId))


@router.put("/api/tests/<testId>", summary="Update a test",
            description="Drafts: any field. Published: only `status` (archived) and `result_status` (pending → "
                        "published); anything else is TEST_READ_ONLY.", middlewares=[require(CLIENT_ADMIN)],
            openapi_extensions=doc(body="exams.papers.models:TestFields", response="exams.papers.models:TestAdminView", errors=(409, 410, 503)))
def update_test(testId: str):
    from .models import TestFields

    body = parse_model(TestFields, json_object(router))
    return ok(service.update(signed_in(router), testId, body.model_dump(exclude_unset=True)), "Test updated")


@router.post("/api/tests/<testId>/publish", summary="Publish a draft test", middlewares=[require(CLIENT_ADMIN)],
             description="Snapshots the paper and the answer key (at most 500 questions). Bound (issue 23 rule 3): "
                         "the snapshots are cut into items of at most 300 KB and written in one transaction; a "
                         "test whose content exceeds DynamoDB's 4 MB transaction is refused whole with 413 "
                         "`PAYLOAD_TOO_LARGE` (nothing published). A test with a `folder_id` and neither "
                         "`question_ids` nor `sections` is built from that folder of the question bank: its "
                         "questions (creation order, at most 500) become the test's `question_ids`.",
             openapi_extensions=doc(response="exams.papers.models:TestAdminView", errors=(409, 410, 413, 503)))
def publish_test(testId: str):
    return ok(service.publish(signed_in(router), testId), "Test published")


@router.get("/api/tests/<testId>/export", summary="Export a test's questions (Moodle XML, GIFT, Aiken, QTI 3)",
            middlewares=[require(*ADMINS)],
            description="Query format (required: moodle_xml, gift, aiken, qti3). The test's questions in its order "
                        "(all sections; a test built from a folder and not yet published: that folder, at most "
                        "500). 422 `EXPORT_NOT_REPRESENTABLE` lists the questions the format cannot carry. "
                        "docs/exams-interchange.md.",
            openapi_extensions=doc(query="exams.questions.models:ExportFormatQuery", content_type="application/octet-stream", errors=(410, 422, 503)))
def export_test(testId: str):
    from ..questions import interchange

    t = service.load(signed_in(router), testId)  # another tenant's test: 403 before any parameter check
    fmt = interchange.export_format(query(router, "format"))
    data, ctype, filename = interchange.export_test(t, service.all_question_ids(t), fmt)
    return file_response(data, ctype, filename)


@router.delete("/api/tests/<testId>", summary="Delete a draft or archived test", middlewares=[require(*ADMINS)],
               openapi_extensions=doc(response="exams.apidoc:Deleted", errors=(409, 410, 503)))
def delete_test(testId: str):
    return ok(service.delete(signed_in(router), testId), "Test deleted")


@router.post("/api/rpc/clone-test", summary="Clone a test into a new draft", middlewares=[require(CLIENT_ADMIN)],
             openapi_extensions=doc(body="exams.papers.models:CloneIn", response="exams.papers.models:TestAdminView", status=201, errors=(409, 410, 503)))
def clone_test():
    from .models import CloneIn

    body = parse_model(CloneIn, json_object(router))
    return ok(service.clone(signed_in(router), body.test_id, body.test_name, body.package_id), "Test cloned", 201)


def _list_total(req: RouteRequest) -> list[tuple[str, str]]:
    """The list's total when the query names the tenant (a super admin's list, or a caller's own
    tenant: another tenant's is refused before it is used); without one the tenant is the caller's,
    unknown before the profile is read. Not for a share-code lookup."""
    from . import repository

    if req.query.get("share_code") is not None:
        return []
    return count_key(req, repository.count_key)


declare("GET /api/tests", _list_total)

app = build_app(router)
lambda_handler = lambda_entry(app)
