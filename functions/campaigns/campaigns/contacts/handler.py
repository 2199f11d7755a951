"""/contacts routes: CRUD, filtered listing, import (in-request and asynchronous), export."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import ApiError
from lambdakit.http import file_response, header, json_object, query, raw_body
from lambdakit.openapi import doc

from ..auth import principal, require
from ..http import build_app, lambda_entry, ok
from ..settings import settings
from . import export

# Cold start: each route imports the use case it runs (listing, service, imports + multipart,
# erasure); export, the function's sample route, is imported with the module.
router = APIGatewayHttpRouter()


def _acct() -> str:
    return principal(router).account_id


@router.get("/contacts", middlewares=[require("contacts:read")], summary="List contacts",
            description="Filters list_id, tag, status, search (case-insensitive prefix of email or name) combine. "
                        "page/limit (max 100) or the opaque cursor from data.pagination.next_cursor.",
            openapi_extensions=doc(query="campaigns.contacts.models:ContactsQuery", response="campaigns.contacts.models:ContactOut", list_key="contacts",
                                   paginated=True))
def list_contacts():
    from . import listing

    q = lambda n: query(router, n)  # noqa: E731
    data = listing.list_contacts(_acct(), page=q("page"), limit=q("limit"), cursor=q("cursor"),
                                 list_id=q("list_id"), tag=q("tag"), status=q("status"), search=q("search"))
    return ok(data, "Contacts retrieved")


@router.post("/contacts", middlewares=[require("contacts:write")], summary="Create a contact",
             description="409 CONFLICT with details.email when the email exists (case-insensitive).",
             openapi_extensions=doc(body="campaigns.contacts.models:ContactIn", response="campaigns.contacts.models:ContactOut", status=201, errors=(409,)))
def create_contact():
    from . import service

    return ok(service.create(_acct(), json_object(router)), "Contact created", status=201)


@router.get("/contacts/export", middlewares=[require("contacts:read")], summary="Export contacts",
            description="format csv|json, list_id, fields (comma-separated), status. format=csv answers text/csv "
                        "(cells starting with = + - @ tab CR neutralised), format=json an application/json array "
                        "of contacts. An export over the inline byte limit answers 200 with the envelope data "
                        "{url, format, count, bytes, filename, expires_in} (presigned S3 download). When the "
                        "counters say the export holds more than CAMPAIGNS_EXPORT_INLINE_MAX_ROWS rows it runs as "
                        "a job: 202 with data {job_id, status: queued, url, expires_in, status_url, ...} where url "
                        "is the presigned download of the file the job writes (ready when status_url says "
                        "completed).",
            openapi_extensions=doc(query="campaigns.contacts.models:ExportQuery", content_type="text/csv",
                                   errors=(404,), also={202: "campaigns.contacts.models:ExportJobStarted"}))
def export_contacts():
    r = export.export(_acct(), fmt=query(router, "format"), list_id=query(router, "list_id"),
                       fields=query(router, "fields"), status=query(router, "status"))
    if "inline" in r:
        body, ctype, filename = r["inline"]
        return file_response(body.decode("utf-8"), ctype, filename, headers={"X-Total-Count": str(r["count"])})
    if "job" in r:
        return ok(r["job"], "Export queued: download from url once status_url shows completed", status=202)
    return ok(r, "Export is ready for download")


@router.get("/contacts/exports/<job_id>", middlewares=[require("contacts:read")], summary="Export job status",
            description="status queued|running|completed|failed, processed/total, progress; url (a fresh "
                        "presigned download) once completed. Another account's job id is 404.",
            openapi_extensions=doc(response="campaigns.contacts.models:ExportJob", errors=(404,)))
def get_export(job_id: str):
    return ok(export.get_export_job(_acct(), job_id), "Export job retrieved")


@router.post("/contacts/import", middlewares=[require("contacts:write")], summary="Import contacts from CSV",
             description="multipart/form-data: file, list_id, tags (comma-separated), update_existing, dry_run. "
                         "data: imported, updated, skipped, errors[{line, error}], mapping (how the columns were "
                         "read: Mailchimp, SendGrid and listmonk exports are recognised by their header). "
                         "dry_run=true is the first pass: rows validated and counted (valid, statuses), nothing "
                         "written. Limits: request body at most "
                         "4,500,000 bytes (CAMPAIGNS_IMPORT_MAX_BYTES; Lambda's 6 MB synchronous event holds the "
                         "base64-encoded body) and 20,000 rows; beyond either, 413 PAYLOAD_TOO_LARGE with "
                         "details {max_bytes, job_route, job_max_bytes}: use POST /contacts/imports. Bodies "
                         "that do not fit the Lambda event at all are refused by API Gateway/Lambda with their "
                         "own 413 before the service runs. Cost: one BatchGetItem and at most one BatchWriteItem "
                         "per 25 plain rows (+1 item per list/tag membership), plus two calls per 100-row chunk "
                         "(a chunk marker PutItem and one TransactWriteItems adding the chunk's counters once). "
                         "Resending the request after a 5xx finishes an interrupted chunk: counters are added "
                         "exactly once and its rows are reported imported.",
             openapi_extensions=doc(response="campaigns.contacts.models:ImportResult", errors=(413,),
                                    form={"file": "file", "list_id": "string", "tags": "string",
                                          "update_existing": "string", "dry_run": "string"}))
def import_contacts():
    from lambdakit import multipart

    from . import imports

    max_bytes = settings().import_max_bytes
    try:
        form = multipart.parse(raw_body(router), header(router, "content-type"), max_bytes=max_bytes)
    except ApiError as exc:
        if exc.status == 413:
            raise ApiError(f"Request bodies over {max_bytes} bytes must use POST /contacts/imports "
                           "(asynchronous job with a presigned S3 upload)", code="PAYLOAD_TOO_LARGE", status=413,
                           details={"max_bytes": max_bytes, "job_route": "POST /contacts/imports",
                                    "job_max_bytes": settings().import_job_max_bytes}) from None
        raise
    data = imports.import_file(_acct(), form)
    return ok(data, f"Imported {data['imported']}, updated {data['updated']}, skipped {data['skipped']}")


@router.post("/contacts/imports", middlewares=[require("contacts:write")], summary="Start an asynchronous import",
             description="JSON {list_id, tags, update_existing}; returns job_id and a presigned S3 upload (POST "
                         "form, content-length-range 1..upload.max_bytes = 200 MB) for the CSV; the form "
                         "expires after upload.expires_in (900 s). The upload starts the job. When the upload "
                         "form cannot be made (S3/credentials unavailable): 503 FILE_STORE_UNAVAILABLE with "
                         "Retry-After, and no job is created.",
             openapi_extensions=doc(body="campaigns.contacts.models:ImportJobIn", response="campaigns.contacts.models:ImportJobStarted", status=202))
def start_import():
    from . import imports

    job = imports.create_import_job(_acct(), json_object(router, required=False))
    return ok(job, "Upload the CSV to the presigned URL to start the import", status=202)


@router.get("/contacts/imports/<job_id>", middlewares=[require("contacts:read")], summary="Import job status",
            description="status (awaiting_upload, running, completed, failed), processed/total, imported, updated, "
                        "skipped, errors. While S3 fails to give the worker the uploaded file, the job stays "
                        "retryable with last_error and read_failures; after 3 failed reads (the import queue's "
                        "delivery budget), or when the file is gone or denied, status is failed with the reason "
                        "in failure. A job whose file never arrived is failed once its upload form has expired "
                        "(plus 1 hour for the upload's event); a later upload event is ignored.",
            openapi_extensions=doc(response="campaigns.contacts.models:ImportJob"))
def get_import(job_id: str):
    from . import imports

    return ok(imports.get_import_job(_acct(), job_id), "Import job retrieved")


@router.get("/contacts/<id>", middlewares=[require("contacts:read")], summary="Get a contact",
            openapi_extensions=doc(response="campaigns.contacts.models:ContactOut"))
def get_contact(id: str):
    from . import service

    return ok(service.get(_acct(), id), "Contact retrieved")


@router.put("/contacts/<id>", middlewares=[require("contacts:write")], summary="Update a contact (partial)",
            openapi_extensions=doc(body="campaigns.contacts.models:ContactPatch", response="campaigns.contacts.models:ContactOut", errors=(409,)))
def update_contact(id: str):
    from . import service

    return ok(service.update(_acct(), id, json_object(router)), "Contact updated")


@router.delete("/contacts/<id>", middlewares=[require("contacts:delete")], summary="Erase a contact",
               description="Data-protection erasure of the contact and every record holding its personal data.",
               openapi_extensions=doc(response="campaigns.contacts.models:ContactDeleted"))
def delete_contact(id: str):
    from . import erasure

    return ok(erasure.delete(_acct(), id), "Contact erased")


app = build_app(router)
lambda_handler = lambda_entry(app)
