"""Unit tests of domain rules (no AWS)."""
from __future__ import annotations

import datetime as dt

import pytest

from internships.auth.permissions import DEFAULT_ROLE_PERMISSIONS, PERMISSIONS, resolve
from internships.coupons import service as coupons
from internships.documents import certificates
from internships.enrollments import gateway, invoices
from internships.enrollments.service import _duration
from internships.learning import plan
from internships.learning.service import with_locks
from lambdakit.errors import BadRequest


def test_permission_defaults_and_super_admin_floor():
    assert len(PERMISSIONS) == 22
    assert DEFAULT_ROLE_PERMISSIONS["admin"] == frozenset(PERMISSIONS) - {"manage_users", "manage_roles"}
    assert resolve("super_admin", {"permissions": ["view_users"]}) == {"view_users", "manage_users", "manage_roles"}
    assert resolve("reviewer", {"permissions": ["export_data", "bogus"]}) == {"export_data"}
    assert resolve("student", None) == frozenset()


@pytest.mark.parametrize("raw,ok", [(1, True), (3, True), ("2", True), (2.0, True), (0, False), (4, False),
                                    (True, False), ("x", False), (None, False), (1.5, False)])
def test_duration(raw, ok):
    if ok:
        assert _duration(raw) in (1, 2, 3)
    else:
        with pytest.raises(BadRequest):
            _duration(raw)


def test_coupon_discount_and_problems():
    pct = {"discount_type": "percent", "discount_value": 15, "is_active": True, "used_count": 0, "max_uses": 2,
           "domain_ids": ["D1"], "expires_at": None}
    assert coupons.discount_for(pct, 999) == 149.85
    assert coupons.discount_for({"discount_type": "flat", "discount_value": 5000}, 1000) == 1000
    assert coupons.problem(pct, "D1") is None
    assert coupons.problem(pct, "D2") == "Coupon is not valid for this domain"
    assert coupons.problem({**pct, "used_count": 2}, "D1") == "Coupon usage limit reached"
    assert coupons.problem({**pct, "expires_at": "2000-01-01T00:00:00Z"}, "D1") == "Coupon has expired"
    assert coupons.problem({**pct, "is_active": False}, "D1") == "Invalid coupon code"


def test_financial_year_and_number():
    utc = dt.timezone.utc
    assert invoices.financial_year(dt.datetime(2026, 3, 31, 18, 29, tzinfo=utc)) == "25-26"  # 23:59 IST
    assert invoices.financial_year(dt.datetime(2026, 3, 31, 18, 31, tzinfo=utc)) == "26-27"  # 1 April IST
    n = invoices.invoice_number("25-26", 123)
    assert n == "INV/25-26/000123" and len(n) == 16
    with pytest.raises(ValueError):
        invoices.invoice_number("25-26", 1_000_000)


def test_gst_split():
    intra = invoices.taxes(1180, "karnataka", "Karnataka", 18)
    assert (intra["taxable_value"], intra["cgst"], intra["sgst"], intra["igst"]) == (1000, 90, 90, 0)
    inter = invoices.taxes(1180, "Maharashtra", "Karnataka", 18)
    assert (inter["tax_mode"], inter["igst"], inter["cgst"]) == ("inter", 180, 0)
    odd = invoices.taxes(999, None, "Karnataka", 18)
    assert round(odd["taxable_value"] + odd["cgst"] + odd["sgst"], 2) == 999


def test_certificate_id_format():
    ids = {certificates.new_id() for _ in range(200)}
    assert len(ids) == 200
    for i in ids:
        assert len(i) == 14 and i[:5] == "CERT-" and i[7] == "-"
        assert all(ch in certificates.ALPHABET for ch in i[8:])


def test_milestone_ids_and_locks():
    assert plan.parse_id(plan.milestone_id("01HXYZ", 3)) == ("01HXYZ", 3)
    assert plan.parse_id("garbage") is None
    ms = [{"id": f"E-0{i}", "enrollment_id": "E", "order": i, "title": str(i), "status": s}
          for i, s in [(1, "reviewed"), (2, "submitted"), (3, "pending")]]
    assert [m["locked"] for m in with_locks(ms)] == [False, False, True]
    e = {"id": "E", "user_id": "U", "domain_id": "D", "duration": 3}
    built = plan.build(e, [{"title": "a"}, {"title": "b"}, {"title": "c"}], "2025-01-01T00:00:00.000Z")
    assert [m["due_date"] for m in built] == ["2025-01-31", "2025-03-02", "2025-04-01"]


def test_checkout_signature_matches_razorpay_scheme():
    import hashlib
    import hmac

    assert gateway.checkout_signature("s3cret", "order_1", "pay_1") == hmac.new(
        b"s3cret", b"order_1|pay_1", hashlib.sha256).hexdigest()
