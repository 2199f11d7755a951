"""/campaigns: CRUD, list, send (schedule or test), cancel."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import header, json_object, parse_model, query
from lambdakit.openapi import doc

from ..auth import principal, require
from ..http import build_app, lambda_entry, ok
from ..sending import idempotency, tokens
from . import service

# Cold start: the body models (and what they import) load with the first write route, not with
# the read routes.
router = APIGatewayHttpRouter()
READ, WRITE = [require("campaigns:read")], [require("campaigns:write")]


def _acct() -> str:
    return principal(router).account_id


@router.get("/campaigns", middlewares=READ, summary="List campaigns",
            description="query: page (default 1), limit (default 20, max 100), status, search (name)",
            openapi_extensions=doc(query="campaigns.campaign.models:CampaignsQuery", response="campaigns.campaign.views:CampaignSummary", list_key="campaigns",
                                   paginated=True))
def list_campaigns():
    return ok(service.list_campaigns(_acct(), query(router, "page"), query(router, "limit"), query(router, "status"),
                                     query(router, "search")), "Campaigns retrieved")


@router.post("/campaigns", middlewares=WRITE, summary="Create a draft campaign",
             openapi_extensions=doc(body="campaigns.campaign.models:CampaignCreate", response="campaigns.campaign.views:CampaignCreated", status=201))
def create_campaign():
    from .models import CampaignCreate

    body = parse_model(CampaignCreate, json_object(router))
    return ok(service.create(_acct(), body), "Campaign created", status=201)


@router.get("/campaigns/<id>", middlewares=READ, summary="Campaign with stats and rates",
            openapi_extensions=doc(response="campaigns.campaign.views:CampaignOut"))
def get_campaign(id: str):
    return ok(service.view(_acct(), id), "Campaign retrieved")


@router.put("/campaigns/<id>", middlewares=WRITE, summary="Update a draft or scheduled campaign (partial)",
            description="Fields not given keep their values, also inside settings and tracking (null clears one); "
                        "audience, schedule and ab_test are given whole (their type decides which fields count). "
                        "An update that raced another is merged again onto the newer campaign; 409 CONFLICT "
                        "after 3 lost races.",
            openapi_extensions=doc(body="campaigns.campaign.models:CampaignBody", response="campaigns.campaign.views:CampaignOut", errors=(409,)))
def update_campaign(id: str):
    from .models import CampaignBody

    body = parse_model(CampaignBody, json_object(router))
    return ok(service.update(_acct(), id, body), "Campaign updated")


@router.post("/campaigns/<id>/send", middlewares=WRITE, summary="Schedule the campaign, or send a test",
             description="{confirm: true} moves a draft to scheduled (422 without it). {send_test: true, "
                         "test_emails: [...]} sends only to those addresses; status unchanged; scheduled_for is the "
                         "send time and estimated_recipients the distinct test addresses. Honours Idempotency-Key.",
             openapi_extensions=doc(body="campaigns.campaign.models:SendRequest", response="campaigns.campaign.views:SendResult", errors=(409,),
                                    notes={503: tokens.BASE_URL_NOTE}))
def send_campaign(id: str):
    from .models import SendRequest

    raw = json_object(router, required=False)
    parse_model(SendRequest, raw)
    tokens.require_base_url()  # 503 BASE_URL_NOT_SET (issue 33), for a send and a test send alike
    res = idempotency.call("campaign.send", _acct(), header(router, "idempotency-key"), {"id": id, **raw},
                           {"account_id": _acct(), "cid": id, "body": raw}, router.lambda_context)
    return ok(res, "Test email sent" if res.get("test") else "Campaign scheduled")


@router.post("/campaigns/<id>/cancel", middlewares=WRITE, summary="Cancel a draft, scheduled or sending campaign",
             openapi_extensions=doc(response="campaigns.campaign.views:Cancelled", errors=(409,)))
def cancel_campaign(id: str):
    return ok(service.cancel(_acct(), id), "Campaign cancelled")


def _request_send(account_id: str, cid: str, body: dict) -> dict:
    from .models import SendRequest

    return service.request_send(account_id, cid, SendRequest.model_validate(body))


idempotency.register("campaign.send", _request_send)

app = build_app(router)
lambda_handler = lambda_entry(app)
