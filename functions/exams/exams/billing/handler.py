"""Subscriptions, subscription requests and packages."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import ValidationFailed
from lambdakit.http import json_object, parse_model, query
from lambdakit.openapi import doc
from lambdakit.pagination import page_request

from ..http import build_app, lambda_entry, ok, paginated
from ..identity import CLIENT_ADMIN, SUPER_ADMIN, require, signed_in
from ..identity.reads import declare, read_with_auth
from . import subscriptions

router = APIGatewayHttpRouter()
STATUSES = ("requested", "available", "used")


def _page():
    return page_request(query(router, "page"), query(router, "limit"), default_limit=20, max_limit=100)


@router.get("/api/superadmin/subscriptions", summary="List client subscriptions (expiry checked lazily)",
            middlewares=[require(SUPER_ADMIN)],
            openapi_extensions=doc(query="exams.apidoc:PageQuery", response="exams.billing.views:Subscription", paginated=True, errors=(503,)))
def list_subscriptions():
    items, meta = subscriptions.list_subscriptions(_page(), have=read_with_auth(router))
    return paginated(items, meta)


@router.put("/api/superadmin/subscriptions/<clientId>", summary="Change a client's plan and expiry",
            description="Writes a subscription history row. expiry_date omitted: one month for paid plans; "
                        "null: never expires.", middlewares=[require(SUPER_ADMIN)],
            openapi_extensions=doc(body="exams.billing.models:SubscriptionUpdate", response="exams.billing.views:Subscription", errors=(409, 503)))
def update_subscription(clientId: str):
    from .models import SubscriptionUpdate

    body = parse_model(SubscriptionUpdate, json_object(router))
    expiry = body.expiry_date if "expiry_date" in body.model_fields_set else subscriptions.DEFAULT_EXPIRY
    sub = subscriptions.change_plan(signed_in(router), clientId, body.plan_id, expiry, source="superadmin")
    return ok(sub, "Subscription updated")


@router.get("/api/subscription-requests", summary="List subscription (plan change) requests",
            middlewares=[require(SUPER_ADMIN, CLIENT_ADMIN)],
            openapi_extensions=doc(query="exams.apidoc:ClientPageQuery", response="exams.billing.views:SubscriptionRequest", paginated=True, errors=(503,)))
def list_subscription_requests():
    items, meta = subscriptions.list_requests(signed_in(router), query(router, "client_id") or None, _page())
    return paginated(items, meta)


@router.post("/api/subscription-requests", summary="Request a plan change (client admin)",
             middlewares=[require(CLIENT_ADMIN)],
             openapi_extensions=doc(body="exams.billing.models:SubscriptionRequestCreate", response="exams.billing.views:SubscriptionRequest", status=201, errors=(409, 503)))
def create_subscription_request():
    from .models import SubscriptionRequestCreate

    body = parse_model(SubscriptionRequestCreate, json_object(router))
    return ok(subscriptions.create_request(signed_in(router), body.plan_id, body.note), "Request submitted",
              status=201)


@router.put("/api/subscription-requests/<requestId>/approve", summary="Approve a plan change request",
            middlewares=[require(SUPER_ADMIN)],
            openapi_extensions=doc(response="exams.billing.views:SubscriptionRequest", errors=(409, 503)))
def approve_subscription_request(requestId: str):
    return ok(subscriptions.approve_request(signed_in(router), requestId), "Request approved")


@router.post("/api/packages/request", summary="Request a pay-per-test package (client admin)",
             middlewares=[require(CLIENT_ADMIN)],
             openapi_extensions=doc(body="exams.billing.models:PackageRequestCreate", response="exams.billing.views:Package", status=201, errors=(503,)))
def request_package():
    from . import packages  # the package routes' module: only they import it (issue 21)
    from .models import PackageRequestCreate

    body = parse_model(PackageRequestCreate, json_object(router))
    return ok(packages.request_package(signed_in(router), body.package_type), "Package requested", status=201)


@router.get("/api/packages/requests", summary="List package purchases (super admin)",
            middlewares=[require(SUPER_ADMIN)],
            openapi_extensions=doc(query="exams.billing.models:PackageRequestsQuery", response="exams.billing.views:Package", paginated=True, errors=(503,)))
def list_package_requests():
    from . import packages

    status = query(router, "status") or None
    if status and status not in STATUSES:
        raise ValidationFailed("Invalid status", fields={"status": f"Must be one of {', '.join(STATUSES)}"})
    items, meta = packages.list_requests(status, _page())
    return paginated(items, meta)


@router.put("/api/packages/requests/<requestId>/approve", summary="Approve a package (optional limit overrides)",
            middlewares=[require(SUPER_ADMIN)],
            openapi_extensions=doc(body="exams.billing.models:PackageApproval", response="exams.billing.views:Package", errors=(409, 503)))
def approve_package(requestId: str):
    from . import packages
    from .models import PackageApproval

    body = parse_model(PackageApproval, json_object(router, required=False))
    return ok(packages.approve(signed_in(router), requestId, body.model_dump()), "Package approved")


@router.get("/api/packages/available", summary="Available packages of the caller's tenant",
            middlewares=[require(SUPER_ADMIN, CLIENT_ADMIN)],
            openapi_extensions=doc(query="exams.apidoc:ClientPageQuery", response="exams.billing.views:Package", paginated=True, errors=(503,)))
def list_available_packages():
    from . import packages

    items, meta = packages.list_available(signed_in(router), query(router, "client_id") or None, _page())
    return paginated(items, meta)


def _global_counters(_req):
    from ..stats import counters

    return counters.keys(None)


# the list's total (the global counters) is read with authentication (a super admin's route)
declare("GET /api/superadmin/subscriptions", _global_counters)

app = build_app(router)
lambda_handler = lambda_entry(app)
