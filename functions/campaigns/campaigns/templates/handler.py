"""/templates routes."""
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


@router.get("/templates", middlewares=[require("templates:read")], summary="List templates",
            description="data.templates plus pagination.",
            openapi_extensions=doc(query="campaigns.common.pagedocs:PageQuery", response="campaigns.templates.models:TemplateOut",
                                   list_key="templates", paginated=True))
def list_templates():
    return ok(service.list_page(_acct(), query(router, "page"), query(router, "limit"), query(router, "cursor")),
              "Templates retrieved")


@router.post("/templates", middlewares=[require("templates:write")], summary="Create a template",
             description="variables is derived from the {{placeholders}} of subject and content when not given.",
             openapi_extensions=doc(body="campaigns.templates.models:TemplateIn", response="campaigns.templates.models:TemplateOut", status=201))
def create_template():
    return ok(service.create(_acct(), json_object(router)), "Template created", status=201)


@router.get("/templates/<id>", middlewares=[require("templates:read")], summary="Get a template",
            openapi_extensions=doc(response="campaigns.templates.models:TemplateOut"))
def get_template(id: str):
    return ok(service.get(_acct(), id), "Template retrieved")


@router.put("/templates/<id>", middlewares=[require("templates:write")], summary="Update a template (partial)",
            openapi_extensions=doc(body="campaigns.templates.models:TemplatePatch", response="campaigns.templates.models:TemplateOut"))
def update_template(id: str):
    return ok(service.update(_acct(), id, json_object(router)), "Template updated")


@router.delete("/templates/<id>", middlewares=[require("templates:delete")], summary="Delete a template",
               openapi_extensions=doc(response="campaigns.templates.models:TemplateDeleted"))
def delete_template(id: str):
    return ok(service.delete(_acct(), id), "Template deleted")


@router.post("/templates/<id>/preview", middlewares=[require("templates:read")], summary="Render a preview",
             description="Body {variables}; data {subject, html, text, missing_variables}. Values are HTML-escaped "
                         "in html; placeholders without a value render empty and are listed.",
             openapi_extensions=doc(body="campaigns.templates.models:PreviewIn", response="campaigns.templates.models:Preview"))
def preview_template(id: str):
    return ok(service.preview(_acct(), id, json_object(router, required=False)), "Template preview rendered")


app = build_app(router)
lambda_handler = lambda_entry(app)
