"""Enrollments, submissions, resources, certificate templates, certificates, invoices."""
from __future__ import annotations

import pytest


@pytest.fixture
def world(seed, intern_users):
    dom = seed.domain("Web Development", milestones=3)
    st = intern_users.student(name="Priya Sharma")
    st2 = intern_users.student(name="Karan Mehta")
    e1 = seed.enrollment(st, dom, status="active")
    e2 = seed.enrollment(st2, dom, status="pending")
    return {"dom": dom, "st": st, "st2": st2, "e1": e1, "e2": e2}


def test_enrollment_list_search_detail_update(api, sa, world, intern_users):
    h = sa.headers
    r = api.get("/api/admin/enrollments", headers=h).json()
    assert r["total"] == 2 and r["pages"] == 1 and len(r["enrollments"]) == 2
    assert api.get("/api/admin/enrollments", headers=h, query={"status": "pending"}).json()["total"] == 1
    r = api.get("/api/admin/enrollments", headers=h, query={"search": "priya"}).json()
    assert [e["id"] for e in r["enrollments"]] == [world["e1"]["id"]] and r["total"] == 1
    assert api.get("/api/admin/enrollments", headers=h, query={"status": "nope"}).status == 400
    r = api.get(f"/api/admin/enrollments/{world['e1']['id']}", headers=h)
    assert r.status == 200 and r.json()["enrollment"]["milestones"] == []
    assert api.get("/api/admin/enrollments/missing", headers=h).status == 404
    # pending → active, then active → cancelled releases the open-enrollment guard
    e2 = world["e2"]["id"]
    r = api.put(f"/api/admin/enrollments/{e2}", headers=h, json={"status": "active", "admin_notes": "paid offline"})
    assert r.status == 200 and r.json()["enrollment"]["status"] == "active"
    det = r.json()["enrollment"]
    assert det["admin_notes"] == "paid offline" and det["milestone_count"] == 3 and det["invoice_id"]
    assert len(api.get(f"/api/admin/enrollments/{e2}", headers=h).json()["enrollment"]["milestones"]) == 3
    assert api.put(f"/api/admin/enrollments/{e2}", headers=h, json={"status": "completed"}).status == 400
    assert api.put(f"/api/admin/enrollments/{e2}", headers=h, json={"status": "pending"}).status == 409
    r = api.put(f"/api/admin/enrollments/{e2}", headers=h, json={"status": "cancelled"})
    assert r.json()["enrollment"]["status"] == "cancelled"
    assert api.get("/api/admin/enrollments", headers=h, query={"status": "active"}).json()["total"] == 1
    assert api.get("/api/admin/enrollments", headers=h, query={"status": "cancelled"}).json()["total"] == 1
    from internships.settings import settings
    from lambdakit.ddb import Table

    assert Table(settings().table_name).get(f"USER#{world['st2'].id}", f"OPEN#{world['dom']['id']}") is None
    # reviewers cannot manage enrollments
    rev = intern_users.staff("reviewer")
    assert api.get("/api/admin/enrollments", headers=rev.headers).status == 403


def test_repair_milestones_keeps_reviewed_ones(api, sa, seed, world):
    e = world["e1"]
    seed.milestone(e, 1, status="reviewed")
    r = api.post(f"/api/admin/enrollments/{e['id']}/repair-milestones", headers=sa.headers)
    assert r.status == 200, r.text
    body = r.json()
    assert body["created"] == 2 and body["total"] == 3
    ms = {m["order"]: m for m in body["milestones"]}
    assert ms[1]["status"] == "reviewed" and ms[2]["status"] == "pending" and ms[3]["title"] == "Step 3"
    again = api.post(f"/api/admin/enrollments/{e['id']}/repair-milestones", headers=sa.headers).json()
    assert again["created"] == 0 and again["total"] == 3
    det = api.get(f"/api/admin/enrollments/{e['id']}", headers=sa.headers).json()["enrollment"]
    assert det["milestone_count"] == 3 and det["progress"]["reviewed"] == 1
    r = api.get("/api/admin/submissions/milestones", headers=sa.headers, query={"status": "pending"}).json()
    assert r["total"] == 2 and r["milestones"][0]["student_name"] == "Priya Sharma"


def test_final_submissions_approve_reject(api, sa, seed, world, intern_users):
    dom = world["dom"]
    s = seed.enrollment(world["st2"], dom, status="active", submission_email="k@example.com",
                        submitted_at="2025-03-03T00:00:00.000Z")
    rev = intern_users.staff("reviewer")
    r = api.get("/api/admin/submissions", headers=rev.headers).json()
    assert r["total"] == 1 and r["submissions"][0]["project_status"] == "submitted"
    assert api.post(f"/api/admin/submissions/{s['id']}/reject", headers=rev.headers, json={}).status == 400
    r = api.post(f"/api/admin/submissions/{s['id']}/reject", headers=rev.headers, json={"remarks": "Missing repo"})
    assert r.status == 200 and r.json()["project_status"] == "rejected"
    assert api.post(f"/api/admin/submissions/{s['id']}/approve", headers=rev.headers).status == 409
    assert api.post(f"/api/admin/submissions/{world['e1']['id']}/approve", headers=rev.headers).status == 404
    assert api.get("/api/admin/submissions", headers=rev.headers, query={"status": "rejected"}).json()["total"] == 1
    # approving completes the enrollment and issues the certificate (all milestones reviewed)
    s2 = seed.enrollment(world["st"], dom, status="active", submission_email="p@example.com",
                         submitted_at="2025-03-04T00:00:00.000Z", project_status="submitted")
    seed.milestone(s2, 1, status="submitted")
    r = api.post(f"/api/admin/submissions/{s2['id']}/approve", headers=rev.headers)
    assert r.status == 409  # a milestone is not reviewed yet
    from internships.settings import settings
    from lambdakit.ddb import Table

    Table(settings().table_name).update(f"ENROLL#{s2['id']}", "MS#01", set={"status": "reviewed"})
    r = api.post(f"/api/admin/submissions/{s2['id']}/approve", headers=rev.headers, json={"remarks": "Great"})
    assert r.status == 200 and r.json()["completed"] is True and r.json()["project_status"] == "approved"
    e = api.get(f"/api/admin/enrollments/{s2['id']}", headers=sa.headers).json()["enrollment"]
    assert e["status"] == "completed" and e["certificate_id"].startswith("CERT-")


def test_resources_crud_upload_sign(api, sa, world):
    h = sa.headers
    did = world["dom"]["id"]
    r = api.post("/api/admin/resources", headers=h, json={"domain_id": did, "week": 2, "title": "Intro",
                                                          "resource_type": "video", "url": "https://v.example/1"})
    assert r.status == 201, r.text
    rid = r.json()["resource"]["id"]
    assert api.post("/api/admin/resources", headers=h, json={"domain_id": "nope", "week": 1, "title": "x",
                                                             "url": "https://a.b"}).status == 400
    assert api.post("/api/admin/resources", headers=h, json={"domain_id": did, "week": 1, "title": "x"}).status == 400
    assert api.post("/api/admin/resources", headers=h, json={"domain_id": did, "week": 1, "title": "x",
                                                             "url": "javascript:alert(1)"}).status == 400
    r = api.put(f"/api/admin/resources/{rid}", headers=h, json={"title": "Intro v2", "week": 3})
    assert r.json()["resource"]["title"] == "Intro v2"
    r = api.get("/api/admin/resources", headers=h, query={"domain_id": did, "week": 3}).json()
    assert r["total"] == 1 and r["resources"][0]["id"] == rid
    assert api.get("/api/admin/resources", headers=h, query={"domain_id": did, "week": 2}).json()["total"] == 0
    assert api.get("/api/admin/resources", headers=h).json()["total"] == 1
    # multipart upload
    boundary = "XyZ"
    pdf = b"%PDF-1.4\n%%EOF"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"resource_type\"\r\n\r\ndocument\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"../week 1.pdf\"\r\n"
            f"Content-Type: application/pdf\r\n\r\n").encode() + pdf + f"\r\n--{boundary}--\r\n".encode()
    r = api.post("/api/admin/resources/upload", headers={**h, "content-type": f"multipart/form-data; boundary={boundary}"},
                 body=body)
    assert r.status == 201, r.text
    key = r.json()["file_key"]
    assert key.startswith("resources/") and key.endswith("/week-1.pdf") and ".." not in key
    from internships.settings import settings
    from lambdakit import aws

    assert aws.client("s3").get_object(Bucket=settings().files_bucket, Key=key)["Body"].read() == pdf
    fake = body.replace(pdf, b"MZ\x90\x00 not a pdf")
    r = api.post("/api/admin/resources/upload", headers={**h, "content-type": f"multipart/form-data; boundary={boundary}"},
                 body=fake)
    assert r.status == 400
    r = api.post("/api/admin/resources/sign", headers=h, json={"filename": "slides.pdf", "content_type": "application/pdf"})
    assert r.status == 200 and r.json()["method"] == "PUT" and "Signature" in r.json()["uploadUrl"]
    assert api.post("/api/admin/resources/sign", headers=h,
                    json={"filename": "x.exe", "content_type": "application/x-msdownload"}).status == 400
    assert api.delete(f"/api/admin/resources/{rid}", headers=h).status == 200
    assert api.get(f"/api/admin/resources/{rid}", headers=h).status == 404
    assert api.get("/api/admin/resources", headers=h).json()["total"] == 0


def test_certificate_templates_single_active(api, sa):
    from internships.admin_learning import cert_templates

    h = sa.headers
    assert cert_templates.active_layout() is None
    r = api.post("/api/admin/certificate-templates", headers=h,
                 json={"name": "Classic", "is_active": True, "layout": {"title": "Certificate for {studentName}"}})
    assert r.status == 201, r.text
    t1 = r.json()["template"]["id"]
    assert cert_templates.active_layout()["title"] == "Certificate for {studentName}"
    r = api.post("/api/admin/certificate-templates", headers=h, json={"name": "Modern",
                                                                      "layout": {"orientation": "portrait"}})
    t2 = r.json()["template"]["id"]
    bad = api.post("/api/admin/certificate-templates", headers=h, json={"name": "X", "layout": {"body": "{password}"}})
    assert bad.status == 400
    r = api.put(f"/api/admin/certificate-templates/{t2}", headers=h, json={"is_active": True})
    assert r.status == 200 and r.json()["template"]["is_active"] is True
    lst = api.get("/api/admin/certificate-templates", headers=h).json()
    assert lst["total"] == 2 and lst["activeTemplateId"] == t2
    assert {t["id"]: t["is_active"] for t in lst["templates"]} == {t1: False, t2: True}
    assert cert_templates.active_layout()["orientation"] == "portrait"
    assert cert_templates.render_text("Hi {studentName}", {"studentName": "Asha"}) == "Hi Asha"
    assert api.put("/api/admin/certificate-templates/nope", headers=h, json={"name": "x"}).status == 404


def test_certificates_revoke_unrevoke_and_invoices_send(api, sa, seed, world):
    h = sa.headers
    c = seed.certificate(world["e1"])
    seed.certificate(world["e2"])
    r = api.get("/api/admin/certificates", headers=h).json()
    assert r["total"] == 2
    cid = c["certificate_id"]
    r = api.post(f"/api/admin/certificates/{cid}/revoke", headers=h, json={"reason": "plagiarism"})
    assert r.status == 200 and r.json()["certificate"]["revoked"] is True
    assert api.post(f"/api/admin/certificates/{cid}/revoke", headers=h).status == 409
    assert api.get("/api/admin/certificates", headers=h, query={"revoked": "true"}).json()["total"] == 1
    assert api.get("/api/admin/certificates", headers=h, query={"search": "priya"}).json()["total"] == 1
    r = api.post(f"/api/admin/certificates/{cid}/unrevoke", headers=h)
    assert r.status == 200 and r.json()["certificate"]["revoked"] is False
    assert api.post(f"/api/admin/certificates/{cid}/unrevoke", headers=h).status == 409
    assert api.post("/api/admin/certificates/CERT-00-NOPE00/revoke", headers=h).status == 404

    inv = seed.invoice(world["e1"])
    # a real invoice: activating the pending enrollment issues one (no PDF stored yet)
    assert api.put(f"/api/admin/enrollments/{world['e2']['id']}", headers=h, json={"status": "active"}).status == 200
    no_pdf_id = api.get(f"/api/admin/enrollments/{world['e2']['id']}", headers=h).json()["enrollment"]["invoice_id"]
    r = api.get("/api/admin/invoices", headers=h).json()
    assert r["total"] == 2
    r = api.post(f"/api/admin/invoices/{inv['id']}/send", headers=h)
    assert r.status == 202, r.text

    from internships.mail import repository as mail_repo
    from internships.settings import settings

    email = mail_repo.get_email(r.json()['emailId'])
    assert email["template"] == "invoice" and email["to"] == world["st"].email
    assert email["attachments"][0]["s3_key"] == inv["pdf_key"]
    r = api.post(f"/api/admin/invoices/{no_pdf_id}/send", headers=h, json={"to": "accounts@example.com"})
    assert r.status == 202, r.text
    email = mail_repo.get_email(r.json()['emailId'])
    from lambdakit import aws

    pdf = aws.client("s3").get_object(Bucket=settings().files_bucket, Key=email["attachments"][0]["s3_key"])
    assert pdf["Body"].read().startswith(b"%PDF") and email["to"] == "accounts@example.com"
    assert api.post(f"/api/admin/invoices/{no_pdf_id}/send", headers=h, json={"to": "bad"}).status == 400
    assert api.post("/api/admin/invoices/nope/send", headers=h).status == 404
