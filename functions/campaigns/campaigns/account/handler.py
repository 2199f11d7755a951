"""/account: the calling key's account settings. GET needs ``settings:read``, PUT ``settings:write``.
Served by the senders function (the account's settings family)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object
from lambdakit.openapi import doc

from ..auth import principal, require
from ..http import ok
from . import service

router = APIGatewayHttpRouter()


def _acct() -> str:
    return principal(router).account_id


@router.get("/account", middlewares=[require("settings:read")], summary="The account's settings",
            description="postal_address (printed in the footer of every campaign and bulk mail) and "
                        "compliance_warnings (postal_address_missing while it is empty).",
            openapi_extensions=doc(response="campaigns.account.models:Account"))
def get_account():
    return ok(service.view(_acct()), "Account retrieved")


@router.put("/account", middlewares=[require("settings:write")], summary="Update the account's settings",
            description="Body {postal_address}: the sender's physical postal address (CAN-SPAM), up to 500 "
                        "characters and 6 lines; an empty string clears it (sends go on, with a compliance "
                        "warning on the account and on each campaign's detail).",
            openapi_extensions=doc(body="campaigns.account.models:AccountUpdate",
                                   response="campaigns.account.models:Account"))
def put_account():
    return ok(service.update(_acct(), json_object(router)), "Account updated")
