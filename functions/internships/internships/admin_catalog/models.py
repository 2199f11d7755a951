"""OpenAPI response models of the admin domain and coupon routes (bodies: catalog/coupons models)."""
from __future__ import annotations

from typing import Optional

from ..admin_common.schemas import Message, Ok, Open


class AdminDomain(Open):
    id: str
    name: str
    slug: str
    is_active: bool
    enrollment_count: int
    created_at: Optional[str] = None
    updated_at: Optional[str] = None


class DomainOut(Ok):
    domain: AdminDomain


class AdminCoupon(Open):
    id: str
    code: str
    discount_type: str
    discount_value: float
    max_uses: Optional[int] = None
    used_count: int
    expires_at: Optional[str] = None
    domain_ids: list[str]
    is_active: bool
    created_at: Optional[str] = None
    updated_at: Optional[str] = None


class CouponOut(Ok):
    coupon: AdminCoupon


Deleted = Message  # {success, message}
