"""/lists routes."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object, query
from lambdakit.openapi import doc

from ..auth import principal, require
from ..http import build_app, lambda_entry, ok
from . import service

router = APIGatewayHttpRouter()


def _acct() -> str:
    return principal(router).account_id


@router.get("/lists", middlewares=[require("lists:read")], summary="List contact lists",
            description="data.lists plus pagination (page, limit, total, pages, next_cursor).",
            openapi_extensions=doc(query="campaigns.common.pagedocs:PageQuery", response="campaigns.lists.models:ListOut", list_key="lists",
                                   paginated=True))
def list_lists():
    r = service.list_page(_acct(), query(router, "page"), query(router, "limit"), query(router, "cursor"))
    return ok(r, "Lists retrieved")


@router.post("/lists", middlewares=[require("lists:write")], summary="Create a list",
             openapi_extensions=doc(body="campaigns.lists.models:ListIn", response="campaigns.lists.models:ListOut", status=201))
def create_list():
    return ok(service.create(_acct(), json_object(router)), "List created", status=201)


@router.get("/lists/<id>", middlewares=[require("lists:read")], summary="Get a list with its counts",
            openapi_extensions=doc(response="campaigns.lists.models:ListOut"))
def get_list(id: str):
    return ok(service.get(_acct(), id), "List retrieved")


@router.put("/lists/<id>", middlewares=[require("lists:write")], summary="Update a list (partial)",
            openapi_extensions=doc(body="campaigns.lists.models:ListPatch", response="campaigns.lists.models:ListOut"))
def update_list(id: str):
    return ok(service.update(_acct(), id, json_object(router)), "List updated")


@router.delete("/lists/<id>", middlewares=[require("lists:delete")], summary="Delete a list",
               description="Contacts are kept and lose the association.",
               openapi_extensions=doc(response="campaigns.lists.models:ListDeleted"))
def delete_list(id: str):
    return ok(service.delete(_acct(), id), "List deleted")


app = build_app(router)
lambda_handler = lambda_entry(app)
