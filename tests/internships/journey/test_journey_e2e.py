"""The issue's end-to-end journey through the real handlers."""
from __future__ import annotations

import shutil
import subprocess

from .helpers import make_coupon, make_domain, sign


def test_student_journey_end_to_end(internships_app, intern_users, intern_seed, tmp_path):
    c = internships_app.internships
    admin = intern_users.staff("admin")
    reviewer = intern_users.staff("reviewer")
    domain = make_domain(c, admin)
    make_coupon(c, admin, code="WELCOME20", discount_value=20)

    # 1. register + login set cookies with the right flags
    reg = {"name": "Kavya Iyer", "email": "kavya@example.com", "password": "Str0ngpass", "phone": "+91 99000 11122",
           "college": "IISc"}
    assert c.post("/api/auth/register", json=reg).status == 200
    r = c.post("/api/auth/login", json={"email": reg["email"], "password": reg["password"]})
    assert r.status == 200
    flags = {ck.split("=", 1)[0]: ck for ck in r.cookies}
    assert "HttpOnly" in flags["auth-token"] and "SameSite=Lax" in flags["auth-token"]
    assert "Path=/api/auth" in flags["refresh-token"] and "HttpOnly" in flags["refresh-token"]
    h = {"Authorization": f"Bearer {r.json()['token']}"}

    # public catalogue
    assert any(d["slug"] == domain["slug"] for d in c.get("/api/domains").json()["domains"])
    assert c.get(f"/api/domains/{domain['slug']}").json()["domain"]["id"] == domain["id"]
    v = c.post("/api/coupons/validate", headers=h, json={"code": "welcome20", "domainId": domain["id"],
                                                         "amount": 1800})
    assert v.json()["valid"] is True and v.json()["discount"] == 360

    # 2. enroll with a coupon
    r = c.post("/api/enrollments/create", headers=h,
               json={"domainId": domain["id"], "duration": 2, "couponCode": "WELCOME20"})
    assert r.status == 200, r.text
    e = r.json()["enrollment"]
    assert (e["amount"], e["discount"], e["status"], e["paymentStatus"]) == (1440, 360, "pending", "created")
    assert e["order"]["amount"] == 144000 and e["order"]["currency"] == "INR"
    assert e["order"]["keyId"] == intern_seed["payments"]["key_id"]
    # duplicate while pending → 409
    assert c.post("/api/enrollments/create", headers=h, json={"domainId": domain["id"], "duration": 1}).status == 409

    # 3. verify with a signature from the dev key secret; wrong signature first changes nothing
    pay = "pay_TEST0000000001"
    bad = c.post("/api/enrollments/verify-payment", headers=h, json={
        "enrollmentId": e["id"], "orderId": e["order"]["orderId"], "paymentId": pay, "signature": "0" * 64})
    assert bad.status == 400
    assert c.get("/api/enrollments/my-enrollments", headers=h).json()["enrollments"][0]["status"] == "pending"
    good = {"enrollmentId": e["id"], "orderId": e["order"]["orderId"], "paymentId": pay,
            "signature": sign(intern_seed["payments"]["key_secret"], e["order"]["orderId"], pay)}
    r1 = c.post("/api/enrollments/verify-payment", headers=h, json=good)
    assert r1.status == 200, r1.text
    r2 = c.post("/api/enrollments/verify-payment", headers=h, json=good)
    assert r2.status == 200 and r2.json()["enrollment"]["invoiceNumber"] == r1.json()["enrollment"]["invoiceNumber"]
    enr = r1.json()["enrollment"]
    assert enr["status"] == "active" and enr["paymentStatus"] == "paid"
    assert enr["invoiceNumber"].startswith("INV/") and len(enr["invoiceNumber"]) == 16

    # 4. milestones unlock in order as a reviewer approves them
    ms = c.get("/api/milestones", headers=h, query={"enrollmentId": e["id"]}).json()["milestones"]
    assert [m["title"] for m in ms] == ["Setup", "Build", "Ship"]
    assert [m["locked"] for m in ms] == [False, True, True]
    assert c.post(f"/api/milestones/{ms[1]['id']}/submit", headers=h,
                  json={"submissionNotes": "jumping ahead here"}).status == 409
    assert c.post(f"/api/milestones/{ms[0]['id']}/submit", headers=h, json={"submissionNotes": "short"}).status == 400
    for i, m in enumerate(ms):
        r = c.post(f"/api/milestones/{m['id']}/submit", headers=h, json={"submissionNotes": f"Done step {i}, repo link"})
        assert r.status == 200, r.text
        if i == 0:  # a rejection, then a resubmission
            r = c.post(f"/api/admin/milestones/{m['id']}/review", headers=reviewer.headers,
                       json={"action": "reject", "remarks": "add tests"})
            assert r.status == 200 and r.json()["milestone"]["status"] == "rejected"
            assert c.post(f"/api/milestones/{m['id']}/submit", headers=h,
                          json={"submissionNotes": "Added the tests now"}).status == 200
        r = c.post(f"/api/admin/milestones/{m['id']}/review", headers=reviewer.headers, json={"remarks": "good"})
        assert r.status == 200 and r.json()["milestone"]["status"] == "reviewed", r.text
        after = c.get("/api/milestones", headers=h, query={"enrollmentId": e["id"]}).json()["milestones"]
        assert [x["locked"] for x in after] == [j > i + 1 for j in range(3)]

    # 5. admin approves; the certificate verifies publicly
    r = c.post(f"/api/admin/enrollments/{e['id']}/approve", headers=admin.headers, json={})
    assert r.status == 200, r.text
    cert_id = r.json()["certificateId"]
    assert cert_id.startswith("CERT-") and len(cert_id) == 14
    again = c.post(f"/api/admin/enrollments/{e['id']}/approve", headers=admin.headers, json={})
    assert again.status == 200 and again.json()["certificateId"] == cert_id
    pub = c.get(f"/api/certificates/verify/{cert_id}")
    assert pub.status == 200 and pub.json()["valid"] is True
    assert pub.json()["certificate"]["studentName"] == "Kavya Iyer"
    assert c.get("/api/certificates/verify/CERT-25-ZZZZZZ").status == 404
    mine = c.get("/api/certificates/my-certificates", headers=h).json()["certificates"]
    assert [x["certificateId"] for x in mine] == [cert_id]

    # 6. the invoice PDF downloads and shows the amounts
    inv = c.get("/api/invoices/my-invoices", headers=h, query={"limit": 10, "offset": 0}).json()
    assert inv["total"] == 1 and inv["invoices"][0]["amount"] == 1440
    pdf = c.get(inv["invoices"][0]["downloadUrl"], headers=h)
    assert pdf.status == 200 and pdf.headers["content-type"] == "application/pdf" and pdf.body[:5] == b"%PDF-"
    other = intern_users.student()
    assert c.get(inv["invoices"][0]["downloadUrl"], headers=other.headers).status == 404
    if shutil.which("pdftotext"):
        path = tmp_path / "invoice.pdf"
        path.write_bytes(pdf.body)
        text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True).stdout
        assert "1,440.00" in text and "CGST" in text and "SGST" in text and enr["invoiceNumber"] in text
