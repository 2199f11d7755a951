"""Public catalogue: GET /api/domains, GET /api/domains/{slug}; POST /api/coupons/validate."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import client_ip, json_object, parse_model
from lambdakit.openapi import doc

from ..auth import principal, require_user
from ..coupons import service as coupons
from ..http import build_app, lambda_entry, ok
from . import service
from .models import CouponValidateRequest

router = APIGatewayHttpRouter()


@router.get("/api/domains", summary="Active domains (public)",
             openapi_extensions=doc(response="internships.catalog.models:DomainList", public=True))
def list_domains():
    return ok({"success": True, "domains": service.list_active()}, headers={"Cache-Control": "public, max-age=60"})


@router.get("/api/domains/<slug>", summary="One active domain by slug (public)",
             openapi_extensions=doc(response="internships.catalog.models:DomainOne", public=True))
def get_domain(slug: str):
    return ok({"success": True, "domain": service.by_slug(slug)})


@router.post("/api/coupons/validate", summary="Check a coupon for a domain and amount", middlewares=[require_user],
             description="200 {valid, discount, coupon, finalAmount}; a coupon the student cannot use (unknown, "
                         "inactive, expired, used up or for another domain) is valid:false with the one message "
                         "\"This coupon code is not valid\" (no use is consumed here). Rate limited per user "
                         "(10/min) and per IP (30/min), one budget shared with the coupon codes tried through "
                         "POST /api/enrollments/create: 429 with Retry-After.",
             openapi_extensions=doc(body="internships.catalog.models:CouponValidateRequest",
                                    response="internships.catalog.models:CouponValidation", errors=(429,)))
def validate_coupon():
    coupons.check_rate(principal(router).user_id, client_ip(router))
    data = parse_model(CouponValidateRequest, json_object(router))
    return ok({"success": True, **coupons.validate(data.code, data.domainId, data.amount)})


app = build_app(router)
lambda_handler = lambda_entry(app)
