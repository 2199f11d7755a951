"""Coupons: ``COUPON#<id>``/``COUPON`` (gsi1 ``COUPONS`` / ``<created_at>#<id>``), code claim
``COUPONCODE#<CODE>``/``CODE``. Redemption ops are returned for the caller's transaction."""
from __future__ import annotations

from lambdakit import ratelimit
from lambdakit.errors import ConditionFailed, Conflict, NotFound

from ..store import clean as _clean
from ..store import table


def key(coupon_id: str) -> tuple[str, str]:
    return f"COUPON#{coupon_id}", "COUPON"



def rate_hit(subject: str, limit: int, window_seconds: int) -> ratelimit.RateDecision:
    return ratelimit.hit(table(), subject, limit, window_seconds)


def get(coupon_id: str, *, consistent: bool = False) -> dict | None:
    return _clean(table().get(*key(coupon_id), consistent=consistent))


def get_by_code(code: str) -> dict | None:
    claim = table().get(f"COUPONCODE#{code.upper()}", "CODE")
    return get(claim["coupon_id"]) if claim else None


def page(limit: int, offset: int) -> tuple[list[dict], int]:
    items = table().query_all("COUPONS", index="gsi1", max_items=offset + limit, forward=False)
    total = (table().get("COUNTERS", "coupons") or {}).get("count", 0)
    return [_clean(i) for i in items[offset:offset + limit]], int(total)


def create(c: dict) -> None:
    pk, sk = key(c["id"])
    try:
        table().transact([
            {"put": {"pk": f"COUPONCODE#{c['code']}", "sk": "CODE", "coupon_id": c["id"]},
             "condition": "attribute_not_exists(pk)"},
            {"put": {"pk": pk, "sk": sk, "gsi1pk": "COUPONS", "gsi1sk": f"{c['created_at']}#{c['id']}", **c},
             "condition": "attribute_not_exists(pk)"},
            {"update": ("COUNTERS", "coupons"), "add": {"count": 1}},
        ])
    except ConditionFailed:
        raise Conflict("A coupon with this code already exists") from None


def update(old: dict, fields: dict, remove: list[str]) -> dict:
    pk, sk = key(old["id"])
    ops: list[dict] = [{"update": (pk, sk), "set": fields, "remove": remove or None,
                        "condition": "attribute_exists(pk) AND code = :old", "values": {":old": old["code"]}}]
    new_code = fields.get("code")
    if new_code and new_code != old["code"]:
        ops += [{"put": {"pk": f"COUPONCODE#{new_code}", "sk": "CODE", "coupon_id": old["id"]},
                 "condition": "attribute_not_exists(pk)"},
                {"delete": (f"COUPONCODE#{old['code']}", "CODE")}]
    try:
        table().transact(ops)
    except ConditionFailed as exc:
        if len(exc.reasons) > 1 and exc.reasons[1] == "ConditionalCheckFailed":
            raise Conflict("A coupon with this code already exists") from None
        raise Conflict("The coupon changed meanwhile; retry") from None
    return get(old["id"], consistent=True) or {}


def delete(c: dict) -> None:
    pk, sk = key(c["id"])
    try:
        table().transact([
            {"delete": (pk, sk), "condition": "attribute_exists(pk)"},
            {"delete": (f"COUPONCODE#{c['code']}", "CODE")},
            {"update": ("COUNTERS", "coupons"), "add": {"count": -1}},
        ])
    except ConditionFailed:
        raise NotFound("Coupon not found") from None


def redeem_op(coupon: dict, now: str) -> dict:
    """Transaction op: one use, only while active, unexpired and under ``max_uses``."""
    cond = "attribute_exists(pk) AND is_active = :t AND (attribute_not_exists(max_uses) OR max_uses = :null " \
           "OR used_count < max_uses) AND (attribute_not_exists(expires_at) OR expires_at = :null " \
           "OR expires_at > :now)"
    return {"update": key(coupon["id"]), "add": {"used_count": 1}, "set": {"updated_at": now},
            "condition": cond, "values": {":t": True, ":null": None, ":now": now}}


def release_op(coupon_id: str) -> dict:
    return {"update": key(coupon_id), "add": {"used_count": -1},
            "condition": "attribute_exists(pk) AND used_count > :zero", "values": {":zero": 0}}
