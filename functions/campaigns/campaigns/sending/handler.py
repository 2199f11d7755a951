"""/email/*: single and bulk sends, bulk progress, the sandbox outbox."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import file_response, header, int_query, json_object, parse_model, query
from lambdakit.openapi import FILE_STORE_NOTE, doc

from ..attachments.handler import router as attachments_router
from ..auth import principal, require
from ..http import build_app, lambda_entry, ok
from . import idempotency, service, tokens

# Cold start: the send routes' body models load with those routes, not with progress/outbox reads.

router = APIGatewayHttpRouter()
SEND = [require("email:send")]


def _acct() -> str:
    return principal(router).account_id


@router.post("/email/send", middlewares=SEND, summary="Send one email now",
             description="Outbound shape (to, cc, bcc, subject, html, text, template_id, variables, "
                         "attachments, tracking, metadata) plus provider {provider: sandbox|ses, from_email, "
                         "from_name}. Honours Idempotency-Key for 24 h. Limits: to+cc+bcc at most 50 addresses "
                         "(SES per message); at most 20 attachments, each inline {filename, content (base64), "
                         "type} or uploaded {attachment_id, filename?, type?} (POST /attachments); inline "
                         "attachments at most 3,000,000 bytes decoded in total; the encoded message at most "
                         "40,000,000 bytes (SES v2: 40 MB after base64 encoding, ~29 MB of attachments); each "
                         "upload at most 26,214,400 bytes. Over any: 422 on attachments. The JSON body must "
                         "fit Lambda's 6 MB event; bigger bodies get API Gateway's own 413.",
             openapi_extensions=doc(body="campaigns.sending.models:SendEmail", response="campaigns.sending.models:SendOut", errors=(409,),
                                    notes={503: tokens.BASE_URL_NOTE + "S3 busy or unreachable while reading an uploaded attachment: nothing is sent. " + FILE_STORE_NOTE}))
def send_email():
    from .models import SendEmail

    raw = json_object(router)
    parse_model(SendEmail, raw)  # validate before taking the idempotency key
    tokens.require_base_url()  # 503 BASE_URL_NOT_SET: no link that cannot resolve is sent (issue 33)
    res = idempotency.call("email.send", _acct(), header(router, "idempotency-key"), raw,
                           {"account_id": _acct(), "body": raw}, router.lambda_context)
    return ok(res["data"], "Email sent" if res["data"]["status"] != "suppressed" else "Recipient is suppressed",
              status=res["status"])


@router.post("/email/bulk", middlewares=SEND, summary="Queue a bulk send",
             description="recipients [{to, variables}] (1-10,000), subject/html/text or template_id, "
                         "send_in_parallel, batch_size (1-1000, default 100), attachments [{attachment_id, "
                         "filename?, type?}] (uploads only, at most 20; the message with them at most 40,000,000 "
                         "bytes encoded). 202 with bulk_id, total, queued, batches, batches_queued and status. "
                         "The bulk and its batches are stored first (an outbox), then queued: when the send queue "
                         "refuses some batches (an SQS failure) the answer is still 202, with status queueing and "
                         "batches_queued below batches, and the dispatcher queues the rest within about two minutes "
                         "(GET /email/bulk/{bulk_id} shows queueing until then). No batch is lost or sent twice, "
                         "and a retry with the same Idempotency-Key answers the first 202 without a second bulk. "
                         "A storage failure before the bulk is stored answers an error (503 with Retry-After when "
                         "DynamoDB is busy) and queues nothing.",
             openapi_extensions=doc(body="campaigns.sending.models:BulkSend", response="campaigns.sending.models:BulkQueued", status=202, errors=(409,),
                                    notes={503: tokens.BASE_URL_NOTE + "S3 busy or unreachable while checking an uploaded attachment: nothing is queued. " + FILE_STORE_NOTE}))
def send_bulk():
    from .models import BulkSend

    raw = json_object(router)
    parse_model(BulkSend, raw)
    tokens.require_base_url()
    key = header(router, "idempotency-key")
    res = idempotency.call("email.bulk", _acct(), key, raw, {"account_id": _acct(), "body": raw, "idempotency_key": key},
                           router.lambda_context)
    return ok(res["data"], "Bulk send queued", status=res["status"])


@router.get("/email/bulk/<bulk_id>", middlewares=SEND, summary="Progress of a bulk send",
            openapi_extensions=doc(response="campaigns.sending.models:BulkProgress"))
def bulk_status(bulk_id: str):
    return ok(service.bulk_status(_acct(), bulk_id), "Bulk send status")


@router.get("/email/outbox", middlewares=SEND, summary="Messages recorded by the sandbox provider, newest first",
            description="query: to, campaign_id, bulk_id, limit (1-100, default 20), cursor",
            openapi_extensions=doc(query="campaigns.sending.models:OutboxQuery", response="campaigns.sending.models:OutboxPage"))
def outbox():
    limit = int_query(router, "limit", 20, minimum=1, maximum=100)
    return ok(service.outbox(_acct(), to=query(router, "to"), campaign_id=query(router, "campaign_id"),
                             bulk_id=query(router, "bulk_id"), limit=limit, cursor=query(router, "cursor")),
              "Outbox retrieved")


@router.get("/email/outbox/<message_id>/raw", middlewares=SEND,
            summary="The exact MIME bytes of one sandbox message (message/rfc822)",
            description="The message as a mailbox receives it: the bytes the SES provider hands to SES "
                        "(SendEmail Content.Raw), built by the same code, with every header (Date, Message-ID, "
                        "List-Unsubscribe, List-Unsubscribe-Post, MIME-Version), the multipart/alternative "
                        "text and HTML parts and the attachments. Save it as a .eml file or pipe it to any mail "
                        "tool. 404 for an id that is not a sandbox message of the account.",
            openapi_extensions=doc(content_type="message/rfc822"))
def outbox_raw(message_id: str):
    raw = service.outbox_raw(_acct(), message_id)
    return file_response(raw.decode("ascii", "replace"), "message/rfc822", f"{message_id[:80]}.eml", inline=True)


app = build_app(router, attachments_router)
lambda_handler = lambda_entry(app)
