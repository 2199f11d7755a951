"""/senders: the account's sender identities (addresses and domains it may send from).
GET needs ``settings:read``; POST ``settings:write``; DELETE ``settings:delete``."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object
from lambdakit.openapi import doc

from ..account.handler import router as account_router
from ..auth import principal, require
from ..http import build_app, lambda_entry, ok
from . import service

router = APIGatewayHttpRouter()


def _acct() -> str:
    return principal(router).account_id


@router.get("/senders", middlewares=[require("settings:read")], summary="List the account's sender identities",
            openapi_extensions=doc(response="campaigns.senders.models:SenderList"))
def list_senders():
    senders = service.list_for(_acct())
    return ok({"senders": senders, "total": len(senders)}, "Senders retrieved")


@router.post("/senders", middlewares=[require("settings:write")], summary="Register a sender address or domain",
             description="Body {email} or {domain}. Creates the SES identity: an address gets a verification email, "
                         "a domain gets DKIM CNAME records (dkim.records) to publish. Only verified identities of "
                         "the account may be used as from_email (422 SENDER_NOT_VERIFIED otherwise). 409 "
                         "SENDER_TAKEN when another account holds it, SENDER_UNAVAILABLE when the platform does.",
             openapi_extensions=doc(body="campaigns.senders.models:SenderCreate",
                                    response="campaigns.senders.models:Sender", status=201, errors=(409,)))
def create_sender():
    return ok(service.register(_acct(), json_object(router)), "Sender registered", status=201)


@router.get("/senders/<id>", middlewares=[require("settings:read")], summary="Get a sender and its verification status",
            description="While not verified, the status (and DKIM records) are refreshed from SES first.",
            openapi_extensions=doc(response="campaigns.senders.models:Sender"))
def get_sender(id: str):
    return ok(service.get(_acct(), id), "Sender retrieved")


@router.delete("/senders/<id>", middlewares=[require("settings:delete")], summary="Delete a sender identity",
               description="Deletes the SES identity too; sends from it are refused from then on (queued batches "
                           "record their recipients failed with reason sender_not_verified).",
               openapi_extensions=doc(response="campaigns.senders.models:SenderDeleted"))
def delete_sender(id: str):
    service.delete(_acct(), id)
    return ok({"id": id, "deleted": True}, "Sender deleted")


app = build_app(router, account_router)
lambda_handler = lambda_entry(app)
