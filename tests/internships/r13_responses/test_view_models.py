"""Issue 35: the admin announcement view and the student's enrollment view are their models, not
hand-kept lists of names. ``announcements.service.admin_view`` dumps ``announcements.models.Announcement``;
``enrollments.views.view`` dumps ``enrollments.models.EnrollmentView``, whose fields' validation aliases
name the storage attributes. The answers keep exactly the keys and values of the former hand mappings
(reproduced below as the reference they are compared with), and storage internals never leave."""
from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from tests.internships.journey.helpers import make_domain

DOC = json.loads((Path(__file__).resolve().parents[3] / "docs" / "openapi" / "internships.json").read_text())

#: the keys the former ``admin_view`` tuple gave every admin announcement answer (``null`` when unset)
ANNOUNCEMENT_KEYS = {"id", "title", "content", "type", "category", "target_audience", "target_domains", "priority",
                     "status", "is_active", "scheduled_for", "expires_at", "delivery_channels", "send_email",
                     "email_queued_at", "email_recipients", "created_by", "created_at", "updated_at"}
STORAGE = {"pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "gsi3pk", "gsi3sk", "user_id",
           "student_email", "student_name", "coupon_id", "gateway", "plan", "updated_at"}


def conforms(body: dict, schema_name: str) -> None:
    import jsonschema

    jsonschema.Draft202012Validator({**DOC, "$ref": f"#/components/schemas/{schema_name}"}).validate(body)


def legacy_enrollment_view(e: dict) -> dict:
    """The hand mapping ``enrollments.views.view`` was before the model did it (the reference)."""
    return {
        "id": e["id"], "domainId": e["domain_id"], "domainName": e.get("domain_name"),
        "domainSlug": e.get("domain_slug"), "duration": e["duration"], "price": e.get("price"),
        "amount": e["amount"], "discount": e["discount"], "couponCode": e.get("coupon_code"),
        "status": e["status"], "paymentStatus": e["payment_status"], "orderId": e.get("order_id"),
        "paymentId": e.get("payment_id"), "invoiceId": e.get("invoice_id"), "invoiceNumber": e.get("invoice_number"),
        "certificateId": e.get("certificate_id"), "milestoneCount": e.get("milestone_count", 0),
        "submissionEmail": e.get("submission_email"), "submittedAt": e.get("submitted_at"),
        "createdAt": e["created_at"], "activatedAt": e.get("activated_at"), "paidAt": e.get("paid_at"),
        "completedAt": e.get("completed_at"), "cancelledAt": e.get("cancelled_at"),
        "endDate": e.get("end_date"),
    }


_PENDING = {"pk": "ENROLL#e1", "sk": "ENROLL", "id": "e1", "user_id": "u1", "student_email": "s@example.com",
            "student_name": "S", "domain_id": "dom-web", "duration": Decimal(1), "amount": Decimal("499"),
            "discount": Decimal(0), "status": "pending", "payment_status": "created",
            "created_at": "2026-01-02T03:04:05.000Z", "updated_at": "2026-01-02T03:04:05.000Z",
            "gsi1pk": "USER#u1#ENROLLS", "gsi1sk": "x", "gateway": "razorpay", "order_id": "order_1"}
_ACTIVE = {**_PENDING, "domain_name": "Web Development", "domain_slug": "web", "price": Decimal("999.5"),
           "amount": Decimal("799.5"), "discount": Decimal("200"), "coupon_code": "SAVE", "coupon_id": "c1",
           "status": "active", "payment_status": "paid", "payment_id": "pay_1", "invoice_id": "inv1",
           "invoice_number": "INV-2026-0001", "milestone_count": Decimal(4), "activated_at": "2026-01-02T04:00:00.000Z",
           "paid_at": "2026-01-02T04:00:00.000Z", "end_date": "2026-02-01", "plan": [{"title": "m1"}]}
_DONE = {**_ACTIVE, "status": "completed", "certificate_id": "cert1", "submission_email": "s@example.com",
         "submitted_at": "2026-01-20T00:00:00.000Z", "completed_at": "2026-01-25T00:00:00.000Z"}
_CANCELLED = {**_PENDING, "status": "cancelled", "cancelled_at": "2026-01-03T00:00:00.000Z", "price": 499.0}


@pytest.mark.parametrize("stored", [_PENDING, _ACTIVE, _DONE, _CANCELLED], ids=["pending", "active", "done", "cancelled"])
def test_enrollment_view_is_the_former_answer(stored):
    """Before/after: the model's dump of the stored item equals what the route answered from the hand
    mapping (which went through ``Enrollment`` at the boundary): same keys, same values, same JSON types."""
    from internships.enrollments.models import Enrollment
    from internships.enrollments.views import view
    from lambdakit.model import dump

    before = dump(Enrollment, legacy_enrollment_view(stored), exclude_unset=True)
    after = view(stored)
    assert json.dumps(after, sort_keys=True) == json.dumps(before, sort_keys=True)
    assert not set(after) & STORAGE and "order" not in after
    conforms(after, "Enrollment")


def test_enrollment_view_refuses_an_item_without_its_required_attributes():
    from pydantic import ValidationError

    from internships.enrollments.views import view

    with pytest.raises(ValidationError, match="paymentStatus|payment_status"):
        view({k: v for k, v in _PENDING.items() if k != "payment_status"})


def test_enrollment_routes_answer_the_view_keys(internships_app, intern_users, intern_seed):
    """Through the routes: create (with its ``order``), my-enrollments and cancel answer the view's keys
    exactly, in the API's names, with the stored values."""
    c = internships_app.internships
    admin = intern_users.staff("admin")
    d = make_domain(c, admin)
    s = intern_users.student()
    r = c.post("/api/enrollments/create", headers=s.headers, json={"domainId": d["id"], "duration": 1})
    assert r.status == 200, r.text
    created = r.json()["enrollment"]
    view_keys = set(legacy_enrollment_view({**_PENDING, "created_at": "x"}))
    assert set(created) == view_keys | {"order"}
    assert created["order"] is None or set(created["order"]) == {"orderId", "amount", "currency", "keyId"}
    assert created["domainId"] == d["id"] and created["status"] in ("pending", "active")

    from internships.enrollments import repository

    stored = repository.get(created["id"])
    mine = c.get("/api/enrollments/my-enrollments", headers=s.headers).json()["enrollments"]
    assert [set(x) for x in mine] == [view_keys]
    assert mine[0] == {k: v for k, v in created.items() if k != "order"}
    assert mine[0]["paymentStatus"] == stored["payment_status"] and mine[0]["createdAt"] == stored["created_at"]
    if created["status"] == "pending":
        r = c.post(f"/api/enrollments/{created['id']}/cancel", headers=s.headers)
        assert r.status == 200, r.text
        assert set(r.json()["enrollment"]) == view_keys
        assert r.json()["enrollment"]["cancelledAt"] is not None


def test_admin_announcement_answers_keep_every_key(internships_app, intern_users):
    """Create, get, update and list answer the same 19 keys as before, ``null`` until set (a fresh
    announcement's ``email_queued_at``/``email_recipients``), and none of the item's storage keys."""
    c = internships_app.internships
    admin = intern_users.staff("admin")
    r = c.post("/api/admin/announcements", headers=admin.headers, json={"title": "Hello", "content": "Line one"})
    assert r.status == 201, r.text
    a = r.json()["announcement"]
    assert set(a) == ANNOUNCEMENT_KEYS
    assert a["email_queued_at"] is None and a["email_recipients"] is None and a["scheduled_for"] is None
    assert a["created_by"] == admin.id and a["delivery_channels"] == {
        "dashboard": True, "email": False, "banner": False, "popup": False}
    conforms(a, "Announcement")
    got = c.get(f"/api/admin/announcements/{a['id']}", headers=admin.headers).json()["announcement"]
    assert got == a
    r = c.put(f"/api/admin/announcements/{a['id']}", headers=admin.headers, json={"priority": 7, "title": "Hi"})
    assert r.status == 200, r.text
    upd = r.json()["announcement"]
    assert set(upd) == ANNOUNCEMENT_KEYS and upd["priority"] == 7 and upd["title"] == "Hi"
    listed = c.get("/api/admin/announcements", headers=admin.headers).json()["announcements"]
    assert [set(x) for x in listed] == [ANNOUNCEMENT_KEYS] and listed[0] == upd


def test_admin_view_is_the_model_and_drops_storage(internships_app):
    from internships.announcements import service

    stored = {"pk": "ANN#a1", "sk": "ANN", "type": "info", "gsi1pk": "ANNS", "gsi1sk": "x", "gsi2pk": "ANNLIVE",
              "id": "a1", "title": "T", "content": "C", "category": "general", "target_audience": "all",
              "target_domains": [], "priority": Decimal(3), "status": "active", "is_active": True,
              "scheduled_for": None, "expires_at": None, "send_email": True, "email_queued_at": "2026-01-01T00:00:00",
              "email_recipients": Decimal(12), "delivery_channels": {"dashboard": True, "email": True,
                                                                     "banner": False, "popup": False},
              "created_by": "adm", "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"}
    view = service.admin_view(stored)
    assert set(view) == ANNOUNCEMENT_KEYS
    assert view["priority"] == 3 and type(view["priority"]) is int and view["email_recipients"] == 12
    assert view["type"] == "info"
    legacy = {k: stored.get(k) for k in ANNOUNCEMENT_KEYS}
    assert view == {**legacy, "priority": 3, "email_recipients": 12}
