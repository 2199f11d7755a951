"""/webhooks: CRUD, test delivery, delivery log and manual retry."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import int_query, json_object, parse_model, query
from lambdakit.openapi import doc

from ..auth import principal, require
from ..http import build_app, lambda_entry, ok
from . import service

router = APIGatewayHttpRouter()
READ, WRITE = [require("webhooks:read")], [require("webhooks:write")]


def _acct() -> str:
    return principal(router).account_id


@router.get("/webhooks", middlewares=READ, summary="List webhooks",
            description="data.webhooks (oldest first) plus pagination; query: page (default 1), "
                        "limit (default 20, max 100). An account has at most 25 webhooks.",
            openapi_extensions=doc(query="campaigns.common.pagedocs:PageNumberQuery", response="campaigns.webhooks.models:Webhook",
                                   list_key="webhooks", paginated=True))
def list_webhooks():
    return ok(service.list_page(_acct(), query(router, "page"), query(router, "limit")), "Webhooks retrieved")


@router.post("/webhooks", middlewares=WRITE, summary="Create a webhook",
             description="url must be https (http and private addresses are allowed only under Stage=local); "
                         "events is a non-empty subset of the eight event kinds; secret is generated when omitted "
                         "(whsec_ + base64 of 32 random bytes: deliveries verify with the Standard Webhooks "
                         "libraries). The response shows the secret in full, this once; reads show it masked (whsec_…last4).",
             openapi_extensions=doc(body="campaigns.webhooks.models:WebhookCreate", response="campaigns.webhooks.models:WebhookWithSecret", status=201, errors=(409,)))
def create_webhook():
    from .models import WebhookCreate

    body = parse_model(WebhookCreate, json_object(router))
    return ok(service.create(_acct(), body), "Webhook created", status=201)


@router.get("/webhooks/<id>", middlewares=READ, summary="Get a webhook",
            openapi_extensions=doc(response="campaigns.webhooks.models:Webhook"))
def get_webhook(id: str):
    return ok(service.view(_acct(), id), "Webhook retrieved")


@router.put("/webhooks/<id>", middlewares=WRITE, summary="Update a webhook (partial)",
            description="A new secret given here is a rotation: the previous secret keeps signing for 24 h "
                        "(see rotate-secret); the response shows it masked.",
            openapi_extensions=doc(body="campaigns.webhooks.models:WebhookUpdate", response="campaigns.webhooks.models:Webhook"))
def update_webhook(id: str):
    from .models import WebhookUpdate

    body = parse_model(WebhookUpdate, json_object(router))
    return ok(service.update(_acct(), id, body), "Webhook updated")


@router.delete("/webhooks/<id>", middlewares=[require("webhooks:delete")], summary="Delete a webhook",
               openapi_extensions=doc(response="campaigns.webhooks.models:WebhookDeleted"))
def delete_webhook(id: str):
    service.delete(_acct(), id)
    return ok({"id": id, "deleted": True}, "Webhook deleted")


@router.post("/webhooks/<id>/rotate-secret", middlewares=WRITE, summary="Rotate the signing secret",
             description="Body (optional): {secret (16-256 chars, generated when omitted), grace_period_seconds "
                         "(0-259200, default 86400)}. The new secret is shown in full this once. Until "
                         "previous_secret_expires_at every delivery is signed with both secrets: webhook-signature "
                         "lists two v1 signatures and x-campaign-signature-previous carries the old hex HMAC.",
             openapi_extensions=doc(body="campaigns.webhooks.models:RotateSecret", response="campaigns.webhooks.models:WebhookWithSecret", errors=(409,)))
def rotate_secret(id: str):
    from .models import RotateSecret

    body = parse_model(RotateSecret, json_object(router, required=False))
    return ok(service.rotate_secret(_acct(), id, body), "Webhook secret rotated; store it now, it is not shown again")


@router.post("/webhooks/<id>/test", middlewares=WRITE, summary="Send a signed test event now",
             description="POSTs event webhook.test synchronously and returns the receiver's status code and latency.",
             openapi_extensions=doc(response="campaigns.webhooks.models:TestResult"))
def test_webhook(id: str):
    res = service.send_test(_acct(), id)
    return ok(res, "Test delivery succeeded" if res["success"] else "Test delivery failed")


@router.get("/webhooks/<id>/deliveries", middlewares=READ, summary="Delivery log, newest first",
            description="query: limit (1-100, default 20), cursor (from pagination.next_cursor)",
            openapi_extensions=doc(query="campaigns.common.pagedocs:CursorQuery", response="campaigns.webhooks.models:DeliveryPage"))
def list_deliveries(id: str):
    limit = int_query(router, "limit", 20, minimum=1, maximum=100)
    return ok(service.deliveries(_acct(), id, limit, query(router, "cursor")), "Deliveries retrieved")


@router.post("/webhooks/<id>/deliveries/<delivery_id>/retry", middlewares=WRITE, summary="Redeliver one delivery",
             description="Moves a finished delivery back to pending and queues it (202). The delivery is recorded "
                         "before it is queued: when the queue refuses it (an SQS failure) the answer is still 202, "
                         "with queued: false, and the dispatcher's relay sweep queues it within about six minutes. "
                         "It is never lost and keeps its webhook-id (at-least-once delivery).",
             openapi_extensions=doc(response="campaigns.webhooks.models:DeliveryQueued", status=202, errors=(409,)))
def retry_delivery(id: str, delivery_id: str):
    res = service.retry(_acct(), id, delivery_id)
    return ok(res, "Delivery queued" if res["queued"] else
              "Delivery recorded; the queue is unavailable, it is queued automatically within minutes", status=202)


app = build_app(router)
lambda_handler = lambda_entry(app)
