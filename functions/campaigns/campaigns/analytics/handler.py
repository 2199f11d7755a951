"""Analytics routes (scope analytics:read)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import query
from lambdakit.openapi import doc

from ..auth import principal, require
from ..http import build_app, lambda_entry, ok
from . import service

router = APIGatewayHttpRouter()
READ = [require("analytics:read")]


def _acct() -> str:
    return principal(router).account_id


@router.get("/campaigns/<id>/analytics", middlewares=READ, summary="Campaign analytics",
            description="timeframe last_7_days | last_30_days (default) | custom with start_date, end_date",
            openapi_extensions=doc(query="campaigns.analytics.models:CampaignAnalyticsQuery", response="campaigns.analytics.models:CampaignAnalytics"))
def campaign_analytics(id: str):
    return ok(service.campaign_analytics(_acct(), id, query(router, "timeframe"), query(router, "start_date"),
                                         query(router, "end_date")), "Campaign analytics")


@router.get("/analytics/overall", middlewares=READ, summary="Account analytics over a period",
            description="start_date and end_date required (422 otherwise); group_by day | week | month",
            openapi_extensions=doc(query="campaigns.analytics.models:OverallQuery", response="campaigns.analytics.models:Overall"))
def overall():
    return ok(service.overall(_acct(), query(router, "start_date"), query(router, "end_date"),
                              query(router, "group_by")), "Overall analytics")


@router.get("/analytics/providers", middlewares=READ, summary="Per-provider delivery analytics",
            description="start_date, end_date optional (default: the last 30 days)",
            openapi_extensions=doc(query="campaigns.analytics.models:RangeQuery", response="campaigns.analytics.models:Providers"))
def providers():
    return ok(service.providers(_acct(), query(router, "start_date"), query(router, "end_date")), "Provider analytics")


@router.get("/analytics/geographic", middlewares=READ, summary="Opens and clicks by country and city",
            openapi_extensions=doc(query="campaigns.analytics.models:RangeQuery", response="campaigns.analytics.models:Geographic"))
def geographic():
    return ok(service.geographic(_acct(), query(router, "start_date"), query(router, "end_date")),
              "Geographic analytics")


@router.get("/analytics/devices", middlewares=READ, summary="Opens and clicks by device type, OS and client",
            openapi_extensions=doc(query="campaigns.analytics.models:RangeQuery", response="campaigns.analytics.models:Devices"))
def devices():
    return ok(service.devices(_acct(), query(router, "start_date"), query(router, "end_date")), "Device analytics")


app = build_app(router)
lambda_handler = lambda_entry(app)
