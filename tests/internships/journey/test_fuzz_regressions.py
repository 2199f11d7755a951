"""Regressions for failures the long fuzz profile found."""


def test_coupon_discount_that_rounds_to_zero_is_a_400_not_a_500(internships_app):
    from tests.internships.conftest import UserFactory

    sa = UserFactory(internships_app).staff("super_admin")
    i = internships_app.internships
    body = {"code": "TINY", "discount_type": "percent", "discount_value": 5e-324, "domain_ids": [],
            "is_active": False, "max_uses": 1}
    r = i.post("/api/admin/coupons", headers=sa.headers, json=body)
    assert r.status == 400 and "discount_value" in r.json()["error"]
    r = i.post("/api/admin/coupons", headers=sa.headers, json={**body, "discount_value": 12.345})
    assert r.status == 201, r.text
    assert r.json()["coupon"]["discount_value"] == 12.35
