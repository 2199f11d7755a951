"""Coupon rules: applicability, discount computation, admin CRUD.

Students are told only what they need: every refusal (unknown, inactive, expired, used up,
other domain, or the last use taken by a concurrent enrollment) is the one answer ``NOT_VALID``, so
codes cannot be told apart by probing; ``problem`` keeps the precise reason for the logs and the admin
side. Every code a student tries, through ``POST /api/coupons/validate`` or ``POST
/api/enrollments/create``, counts against one per-user and one per-IP budget (``check_rate``;
docs/internships-journey.md "Coupon enumeration").
"""
from __future__ import annotations

import logging

from lambdakit import clock, ids, ratelimit
from lambdakit.errors import BadRequest, NotFound, RateLimited

from ..settings import settings
from . import repository as repo

logger = logging.getLogger("internships.coupons")

#: The single answer for every coupon a student cannot use.
NOT_VALID = "This coupon code is not valid"


def discount_for(coupon: dict, amount: float) -> float:
    amount = max(0.0, float(amount))
    if coupon["discount_type"] == "percent":
        d = amount * float(coupon["discount_value"]) / 100.0
    else:
        d = float(coupon["discount_value"])
    return round(min(amount, d), 2)


def problem(coupon: dict | None, domain_id: str | None) -> str | None:
    """Why ``coupon`` cannot be used now (``None`` when it can)."""
    if not coupon or not coupon.get("is_active"):
        return "Invalid coupon code"
    exp = coupon.get("expires_at")
    if exp and clock.parse_iso(exp) <= clock.now():
        return "Coupon has expired"
    if coupon.get("max_uses") is not None and int(coupon.get("used_count", 0)) >= int(coupon["max_uses"]):
        return "Coupon usage limit reached"
    if coupon.get("domain_ids") and domain_id and domain_id not in coupon["domain_ids"]:
        return "Coupon is not valid for this domain"
    if coupon.get("domain_ids") and not domain_id:
        return "Coupon is only valid for specific domains"
    return None


def find(code: str) -> dict | None:
    code = (code or "").strip().upper()
    if not code or len(code) > 40:
        return None
    return repo.get_by_code(code)


def usable(code: str, domain_id: str) -> dict:
    c = find(code)
    why = problem(c, domain_id)
    if why or c is None:  # problem() names a missing coupon; the check narrows c for the return
        logger.info("coupon refused", extra={"reason": why})
        raise BadRequest(NOT_VALID)
    return c


def public_view(c: dict) -> dict:
    return {"code": c["code"], "discount_type": c["discount_type"], "discount_value": c["discount_value"],
            "expires_at": c.get("expires_at")}


def admin_view(c: dict) -> dict:
    return {"id": c["id"], "code": c["code"], "discount_type": c["discount_type"],
            "discount_value": c["discount_value"], "max_uses": c.get("max_uses"),
            "used_count": int(c.get("used_count", 0)), "expires_at": c.get("expires_at"),
            "domain_ids": c.get("domain_ids", []), "is_active": bool(c.get("is_active")),
            "created_at": c.get("created_at"), "updated_at": c.get("updated_at")}


def check_rate(user_id: str, ip: str) -> None:
    """Count one coupon try; ``RateLimited`` (429 + Retry-After) past the per-user or the per-IP budget.

    The one budget of every route that looks a code up (validate, and enroll with ``couponCode``): the
    same keys, so alternating the routes does not double it."""
    s = settings()
    for subject, spec in ((f"coupon-check#user#{user_id}", s.coupon_validate_user_rate),
                          (f"coupon-check#ip#{ip}", s.coupon_validate_ip_rate)):
        limit, window = ratelimit.parse_rate(spec)
        d = repo.rate_hit(subject, limit, window)
        if not d.allowed:
            raise RateLimited("Too many coupon checks; try again later", headers=d.headers())


def validate(code: str, domain_id: str | None, amount: float | None) -> dict:
    c = find(code)
    why = problem(c, domain_id)
    if why or c is None:  # problem() names a missing coupon; the check narrows c for what follows
        logger.info("coupon refused", extra={"reason": why})
        return {"valid": False, "discount": 0, "coupon": None, "message": NOT_VALID}
    d = discount_for(c, amount or 0)
    return {"valid": True, "discount": d, "coupon": public_view(c),
            "finalAmount": round(max(0.0, float(amount or 0) - d), 2)}


def list_page(limit: int, offset: int) -> tuple[list[dict], int]:
    return repo.page(limit, offset)


def get(coupon_id: str) -> dict:
    c = repo.get(coupon_id)
    if not c:
        raise NotFound("Coupon not found")
    return c


def create(data) -> dict:
    now = clock.now_iso()
    c = {"id": ids.sortable_id(), **data.model_dump(), "used_count": 0, "created_at": now, "updated_at": now}
    repo.create(c)
    return c


def update(coupon_id: str, data) -> tuple[dict, dict]:
    old = get(coupon_id)
    raw = data.model_dump(exclude_unset=True)
    fields = {k: v for k, v in raw.items() if v is not None}
    remove = [k for k in ("max_uses", "expires_at") if k in raw and raw[k] is None]
    merged = {**old, **fields}
    if merged["discount_type"] == "percent" and float(merged["discount_value"]) > 100:
        raise BadRequest("A percent discount cannot exceed 100")
    fields["updated_at"] = clock.now_iso()
    return old, repo.update(old, fields, remove)


def delete(coupon_id: str) -> dict:
    c = get(coupon_id)
    repo.delete(c)
    return c
