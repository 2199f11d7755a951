"""Admin CRUD of domains (/api/admin/domains, admin and super_admin) and coupons
(/api/admin/coupons, permission manage_coupons). Every mutation is recorded in the activity log."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object, parse_model, query
from lambdakit.openapi import doc
from lambdakit.pagination import page_meta, page_request

from .. import activity
from ..auth import principal, require_permission, require_roles
from ..catalog import service as domains
from ..coupons import service as coupons
from ..http import build_app, lambda_entry, ok

router = APIGatewayHttpRouter()
_M = "internships.admin_catalog.models:"
DOMAIN_ADMINS = require_roles("admin", "super_admin")
COUPON_ADMINS = require_permission("manage_coupons")


def _admin() -> str:
    return principal(router).user_id


@router.get("/api/admin/domains",
            openapi_extensions=doc(response=_M + "AdminDomain", list_key="domains"),
            summary="All domains (incl. inactive)", middlewares=[DOMAIN_ADMINS])
def list_domains():
    items = domains.list_admin()
    return ok({"success": True, "domains": items, "total": len(items)})


@router.post("/api/admin/domains",
             openapi_extensions=doc(body="internships.catalog.models:DomainIn", response=_M + "DomainOut", status=201,
                                    errors=(409,)),
             summary="Create a domain", middlewares=[DOMAIN_ADMINS])
def create_domain():
    from ..catalog.models import DomainIn

    d = domains.create(parse_model(DomainIn, json_object(router)))
    activity.record(_admin(), "create", "domain", d["id"], after=d)
    return ok({"success": True, "domain": domains.admin_view(d)}, status=201)


@router.get("/api/admin/domains/<id>",
            openapi_extensions=doc(response=_M + "DomainOut"),
            summary="One domain", middlewares=[DOMAIN_ADMINS])
def get_domain(id: str):  # noqa: A002
    return ok({"success": True, "domain": domains.admin_view(domains.get(id))})


@router.put("/api/admin/domains/<id>",
            openapi_extensions=doc(body="internships.catalog.models:DomainPatch", response=_M + "DomainOut",
                                   errors=(409,)),
            summary="Update a domain (partial)", middlewares=[DOMAIN_ADMINS])
def update_domain(id: str):  # noqa: A002
    from ..catalog.models import DomainPatch

    old, new = domains.update(id, parse_model(DomainPatch, json_object(router)))
    activity.record(_admin(), "update", "domain", id, before=old, after=new)
    return ok({"success": True, "domain": domains.admin_view(new)})


@router.delete("/api/admin/domains/<id>", summary="Delete a domain without enrollments",
               openapi_extensions=doc(response=_M + "Deleted", errors=(409,)),
               description="409 when enrollments reference it: deactivate it instead.", middlewares=[DOMAIN_ADMINS])
def delete_domain(id: str):  # noqa: A002
    d = domains.delete(id)
    activity.record(_admin(), "delete", "domain", id, before=d)
    return ok({"success": True, "message": "Domain deleted"})


@router.get("/api/admin/coupons",
            openapi_extensions=doc(query="internships.admin_common.schemas:PageQuery", response=_M + "AdminCoupon",
                                   list_key="coupons", paginated=True),
            summary="Coupons, newest first (page, limit)", middlewares=[COUPON_ADMINS])
def list_coupons():
    req = page_request(query(router, "page"), query(router, "limit"))
    items, total = coupons.list_page(req.limit, req.offset)
    return ok({"success": True, "coupons": [coupons.admin_view(c) for c in items], **page_meta(req, total)})


@router.post("/api/admin/coupons",
             openapi_extensions=doc(body="internships.coupons.models:CouponIn", response=_M + "CouponOut", status=201,
                                    errors=(409,)),
             summary="Create a coupon", middlewares=[COUPON_ADMINS])
def create_coupon():
    from ..coupons.models import CouponIn

    c = coupons.create(parse_model(CouponIn, json_object(router)))
    activity.record(_admin(), "create", "coupon", c["id"], after=c)
    return ok({"success": True, "coupon": coupons.admin_view(c)}, status=201)


@router.get("/api/admin/coupons/<id>",
            openapi_extensions=doc(response=_M + "CouponOut"),
            summary="One coupon", middlewares=[COUPON_ADMINS])
def get_coupon(id: str):  # noqa: A002
    return ok({"success": True, "coupon": coupons.admin_view(coupons.get(id))})


@router.put("/api/admin/coupons/<id>",
            openapi_extensions=doc(body="internships.coupons.models:CouponPatch", response=_M + "CouponOut",
                                   errors=(409,)),
            summary="Update a coupon (partial)", middlewares=[COUPON_ADMINS])
def update_coupon(id: str):  # noqa: A002
    from ..coupons.models import CouponPatch

    old, new = coupons.update(id, parse_model(CouponPatch, json_object(router)))
    activity.record(_admin(), "update", "coupon", id, before=old, after=new)
    return ok({"success": True, "coupon": coupons.admin_view(new)})


@router.delete("/api/admin/coupons/<id>",
               openapi_extensions=doc(response=_M + "Deleted"),
               summary="Delete a coupon", middlewares=[COUPON_ADMINS])
def delete_coupon(id: str):  # noqa: A002
    c = coupons.delete(id)
    activity.record(_admin(), "delete", "coupon", id, before=c)
    return ok({"success": True, "message": "Coupon deleted"})


app = build_app(router)
lambda_handler = lambda_entry(app)
