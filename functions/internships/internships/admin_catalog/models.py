"""Response models of the admin domain and coupon routes (bodies: catalog/coupons models).

Every answer is dumped through these models (issue 35): the services' ``admin_view`` hand over the
stored item and only what is declared here reaches the admin. ``AdminDomain`` extends the public
domain, so a field added to ``catalog.models.PublicDomain`` is shown to admins too."""
from __future__ import annotations

from lambdakit.model import Model

from ..catalog.models import PublicDomain


class AdminDomain(PublicDomain):
    enrollment_count: int
    created_at: str | None = None
    updated_at: str | None = None


class DomainOut(Model):
    success: bool
    domain: AdminDomain


class AdminCoupon(Model):
    id: str
    code: str
    discount_type: str
    discount_value: float
    max_uses: int | None = None
    used_count: int
    expires_at: str | None = None
    domain_ids: list[str]
    is_active: bool
    created_at: str | None = None
    updated_at: str | None = None


class CouponOut(Model):
    success: bool
    coupon: AdminCoupon


class Deleted(Model):
    success: bool
    message: str
