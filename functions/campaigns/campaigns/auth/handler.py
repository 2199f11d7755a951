"""Key management routes: GET/POST /api-keys, GET/DELETE /api-keys/{key_id} (all need settings:write).
The keys and their rules are ``campaigns.apikeys``; this is their HTTP face, next to the guard."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object
from lambdakit.openapi import doc

from ..apikeys import service
from ..http import build_app, lambda_entry, ok
from . import principal, require

router = APIGatewayHttpRouter()
ADMIN = [require("settings:write")]


@router.get("/api-keys", middlewares=ADMIN, summary="List the account's API keys (secrets are never shown)",
            openapi_extensions=doc(response="campaigns.apikeys.models:KeyList"))
def list_keys():
    keys = service.list_for(principal(router))
    return ok({"api_keys": keys, "total": len(keys)}, "API keys retrieved")


@router.post("/api-keys", middlewares=ADMIN, summary="Create an API key",
             description="Body {name, scopes | role, plan, restrictions}. data.key holds the secret, shown once.",
             openapi_extensions=doc(body="campaigns.apikeys.models:CreateKey", response="campaigns.apikeys.models:KeyCreated", status=201))
def create_key():
    secret, record = service.create_for(principal(router), json_object(router))
    return ok({"key": secret, "key_id": record["key_id"], "record": record, **record},
              "API key created; store the key now, it is not shown again", status=201)


@router.get("/api-keys/<key_id>", middlewares=ADMIN, summary="Get an API key record",
            openapi_extensions=doc(response="campaigns.apikeys.models:KeyOut"))
def get_key(key_id: str):
    return ok(service.get_for(principal(router), key_id), "API key retrieved")


@router.delete("/api-keys/<key_id>", middlewares=[require("settings:delete")], summary="Revoke an API key",
               description="Effective on the next request. A key cannot revoke itself (409).",
               openapi_extensions=doc(response="campaigns.apikeys.models:KeyOut", errors=(409,)))
def revoke_key(key_id: str):
    return ok(service.revoke_for(principal(router), key_id), "API key revoked")


app = build_app(router)
lambda_handler = lambda_entry(app)
