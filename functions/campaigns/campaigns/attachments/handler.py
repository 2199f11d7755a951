"""POST /attachments (served by the sending function): a presigned upload for a file too big
to travel inline in /email/send or /email/bulk."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object, parse_model
from lambdakit.openapi import FILE_STORE_NOTE, doc

from ..auth import principal, require
from ..http import ok

# Cold start: the sending function serves this route too; its service (S3 presigning) and model
# load with the route.
router = APIGatewayHttpRouter()


@router.post("/attachments", middlewares=[require("email:send")], summary="Upload an attachment (presigned S3 POST)",
             description="JSON {filename, type}. 201 with attachment_id and upload {method: POST, url, fields, "
                         "max_bytes, expires_in}: POST the file as multipart/form-data with every field of "
                         "upload.fields plus `file` (last) to upload.url before expires_at (900 s). The upload "
                         "must carry that Content-Type and be 1..26,214,400 bytes (content-length-range). Then "
                         "reference it as attachments[{attachment_id, filename?, type?}] in /email/send or "
                         "/email/bulk. Stored files expire after about a day. Another account's id is "
                         "unknown (422 on the send).",
             openapi_extensions=doc(body="campaigns.attachments.models:AttachmentCreate",
                                    response="campaigns.attachments.models:AttachmentCreated", status=201,
                                    notes={503: "S3 busy or unreachable while signing the upload form. " + FILE_STORE_NOTE}))
def create_attachment():
    from . import service
    from .models import AttachmentCreate

    body = parse_model(AttachmentCreate, json_object(router))
    return ok(service.create_upload(principal(router).account_id, body), "Upload the file to upload.url", status=201)
