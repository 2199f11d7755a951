"""Question bank routes: GET/POST /api/questions, POST /api/questions/import, GET /api/questions/export,
DELETE /api/questions."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import ValidationFailed
from lambdakit.http import file_response, header, json_object, parse_model, query, raw_body
from lambdakit.openapi import doc
from lambdakit.pagination import page_meta, page_request

from ..http import build_app, lambda_entry, ok, paginated
from ..identity import CLIENT_ADMIN, SUPER_ADMIN, require, signed_in
from ..identity.reads import RouteRequest, count_key, declare, read_with_auth
from ..settings import settings
from . import interchange, service

_RAW_TYPES = ("text/csv", "application/csv", "text/plain", "application/xml", "text/xml", "application/zip",
              "application/x-zip-compressed", "application/octet-stream")


router = APIGatewayHttpRouter()


@router.get("/api/questions", summary="List the question bank", middlewares=[require(SUPER_ADMIN, CLIENT_ADMIN)],
            description="Query client_id (required for super admins), folder_id, page, limit, cursor. "
                        "Answer keys are included (admins only).",
            openapi_extensions=doc(query="exams.questions.models:QuestionListQuery", response="exams.questions.models:Question", paginated=True, errors=(503,)))
def list_questions():
    req = page_request(query(router, "page"), query(router, "limit"), default_limit=50, max_limit=200)
    items, total, nxt = service.list_questions(signed_in(router), query(router, "client_id"),
                                               query(router, "folder_id"), page=req.page, limit=req.limit,
                                               cursor=query(router, "cursor"), have=read_with_auth(router))
    return paginated(items, page_meta(req, total), next_cursor=nxt)


@router.post("/api/questions", summary="Create a question", middlewares=[require(CLIENT_ADMIN)],
             openapi_extensions=doc(body="exams.questions.models:QuestionIn", response="exams.questions.models:Question", status=201, errors=(409, 503)))
def create_question():
    from .models import QuestionIn

    body = parse_model(QuestionIn, json_object(router))
    return ok(service.create(signed_in(router), body.model_dump()), "Question created", 201)


@router.post("/api/questions/import", summary="Import questions from CSV, Moodle XML, GIFT, Aiken or QTI 3 (all-or-nothing)",
             middlewares=[require(CLIENT_ADMIN)],
             description="multipart/form-data with a `file` and optional `format` (csv (default), moodle_xml, gift, "
                         "aiken, qti3), `folder_id`, `package_id`, `client_id`; or the file as the raw body "
                         "(text/csv, text/plain, application/xml, text/xml, application/zip) with those as query "
                         "parameters. qti3: one item XML or a content package zip with imsmanifest.xml. Every "
                         "problem is reported by line and item, and nothing is written unless every question maps "
                         "(docs/exams-interchange.md).",
             openapi_extensions=doc(form={"file": "file", "format": "string", "folder_id": "string", "package_id": "string", "client_id": "string"}, query="exams.questions.models:ImportQuery", response="exams.questions.models:ImportResult", status=201, errors=(409, 413, 503)))
def import_questions():
    s = settings()
    ctype = header(router, "content-type") or ""
    body = raw_body(router)
    fields: dict[str, str] = {}
    if ctype.lower().startswith("multipart/form-data"):
        from lambdakit import multipart

        form = multipart.parse(body, ctype, max_bytes=s.csv_max_bytes)
        upload = form.files.get("file") or next(iter(form.files.values()), None)
        if upload is None:
            raise ValidationFailed("A file is required", fields={"file": "Required"})
        data, fields = upload.data, form.fields
    elif ctype.lower().startswith(_RAW_TYPES):
        if len(body) > s.csv_max_bytes:
            from lambdakit.errors import PayloadTooLarge

            raise PayloadTooLarge(f"Upload exceeds {s.csv_max_bytes} bytes")
        data = body
    else:
        raise ValidationFailed("Expected multipart/form-data with a file", fields={"file": "Required"})
    fmt = interchange.import_format(fields.get("format") or query(router, "format"))
    client_id = fields.get("client_id") or query(router, "client_id")
    folder_id = fields.get("folder_id") or query(router, "folder_id")
    package_id = fields.get("package_id") or query(router, "package_id")
    if fmt == "csv":
        result = service.import_csv(signed_in(router), data, client_id=client_id, folder_id=folder_id,
                                    package_id=package_id, max_rows=s.csv_max_rows)
    else:
        result = interchange.import_file(signed_in(router), data, fmt, client_id=client_id, folder_id=folder_id,
                                         package_id=package_id, max_rows=s.csv_max_rows)
    return ok(result, f"Imported {result['imported']} questions", 201)


@router.get("/api/questions/export", summary="Export a folder of the question bank (Moodle XML, GIFT, Aiken, QTI 3)",
            middlewares=[require(SUPER_ADMIN, CLIENT_ADMIN)],
            description="Query format (required: moodle_xml, gift, aiken, qti3), folder_id (without it: the whole "
                        "bank), client_id (required for super admins). At most the import limit of questions. 422 "
                        "`EXPORT_NOT_REPRESENTABLE` lists the questions the format cannot carry (Aiken: only "
                        "single-answer multiple choice). docs/exams-interchange.md.",
            openapi_extensions=doc(query="exams.questions.models:ExportQuery", content_type="application/octet-stream", errors=(422, 503)))
def export_questions():
    fmt = interchange.export_format(query(router, "format"))
    data, ctype, filename = interchange.export_folder(signed_in(router), query(router, "client_id"),
                                                      query(router, "folder_id"), fmt,
                                                      max_questions=settings().csv_max_rows)
    return file_response(data, ctype, filename)


@router.delete("/api/questions", summary="Roll back one CSV import batch", middlewares=[require(SUPER_ADMIN, CLIENT_ADMIN)],
               description="Query import_batch_id (required): deletes exactly the questions of that batch.",
               openapi_extensions=doc(query="exams.questions.models:RollbackQuery", response="exams.questions.models:RollbackResult", errors=(409, 503)))
def rollback_import():
    batch = query(router, "import_batch_id")
    if not batch:
        raise ValidationFailed("import_batch_id is required", fields={"import_batch_id": "Required"})
    return ok(service.rollback(signed_in(router), batch), "Import batch rolled back")


def _list_total(req: RouteRequest) -> list[tuple[str, str]]:
    """The list's total when the query names the tenant (a super admin's list, or a client admin's
    own tenant: another tenant's is refused before it is used); without one the tenant is the
    caller's, unknown before the profile is read."""
    from . import repository

    return count_key(req, repository.count_key)


declare("GET /api/questions", _list_total)

app = build_app(router)
lambda_handler = lambda_entry(app)
