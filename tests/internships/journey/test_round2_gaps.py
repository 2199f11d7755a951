"""Round-2 gaps: set-password links (POST /api/auth/reset-password), access tokens revoked at
logout (token version), presigned download links of staff-uploaded resources."""
from __future__ import annotations

import urllib.parse

from lambdakit import clock

from .helpers import enroll_and_pay, make_domain

REG = {"name": "Asha Rao", "email": "asha.reset@example.com", "password": "Str0ngPassw0rd", "phone": "+919812345678"}


def _cookie(r, name):
    for c in r.cookies:
        if c.startswith(name + "="):
            return c.split(";", 1)[0].split("=", 1)[1]
    return None


def test_logout_revokes_issued_access_tokens(internships_app):
    c = internships_app.internships
    r = c.post("/api/auth/register", json=REG)
    assert r.status == 200, r.text
    token = r.json()["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    assert c.get("/api/auth/me", headers=bearer).status == 200
    assert c.post("/api/auth/logout", headers=bearer).status == 200
    again = c.get("/api/auth/me", headers=bearer)
    assert again.status == 401 and again.json() == {"error": "Token has been revoked"}
    # a fresh sign-in gets a token carrying the new version
    r = c.post("/api/auth/login", json={"email": REG["email"], "password": REG["password"]})
    assert c.get("/api/auth/me", headers={"Authorization": f"Bearer {r.json()['token']}"}).status == 200
    # the version never leaks in the user body
    assert "token_version" not in c.get("/api/auth/me", headers={"Authorization": f"Bearer {r.json()['token']}"}
                                        ).json()["user"]


def _set_password_link(user_id: str) -> str:
    from internships.admin_people.passwords import issue_set_password_link

    link, _ = issue_set_password_link(user_id, purpose="lead_convert")
    return urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["token"][0]


def test_reset_password_consumes_token_once_and_revokes_sessions(internships_app):
    c = internships_app.internships
    r = c.post("/api/auth/register", json=REG)
    uid, old_access, old_refresh = r.json()["user"]["id"], r.json()["token"], _cookie(r, "refresh-token")
    token = _set_password_link(uid)

    weak = c.post("/api/auth/reset-password", json={"token": token, "password": "short"})
    assert weak.status == 400 and "Password" in weak.json()["error"]
    assert c.post("/api/auth/reset-password", json={"token": "nope", "password": "N3wPassword!"}).status == 400
    assert c.post("/api/auth/reset-password", json={"password": "N3wPassword!"}).status == 400

    ok = c.post("/api/auth/reset-password", json={"token": token, "password": "N3wPassword!"})
    assert ok.status == 200 and ok.json()["success"] is True
    # single use
    used = c.post("/api/auth/reset-password", json={"token": token, "password": "Other0ne!!"})
    assert used.status == 400 and used.json() == {"error": "This link is invalid or has expired"}
    # the new password signs in, the old one does not
    assert c.post("/api/auth/login", json={"email": REG["email"], "password": "N3wPassword!"}).status == 200
    assert c.post("/api/auth/login", json={"email": REG["email"], "password": REG["password"]}).status == 401
    # tokens and sessions from before the reset are dead
    assert c.get("/api/auth/me", headers={"Authorization": f"Bearer {old_access}"}).status == 401
    ref = c.post("/api/auth/refresh", headers={"cookie": f"refresh-token={old_refresh}",
                                                "sec-fetch-site": "same-origin"})
    assert ref.status == 401


def test_reset_password_token_expires_after_72h(internships_app):
    c = internships_app.internships
    uid = c.post("/api/auth/register", json=REG).json()["user"]["id"]
    token = _set_password_link(uid)
    clock.set_offset(72 * 3600 + 5)
    r = c.post("/api/auth/reset-password", json={"token": token, "password": "N3wPassword!"})
    assert r.status == 400
    clock.set_offset(0)
    assert c.post("/api/auth/login", json={"email": REG["email"], "password": REG["password"]}).status == 200


def test_student_resources_presign_uploaded_files(internships_app, intern_users, intern_seed):
    c = internships_app.internships
    admin = intern_users.staff("admin")
    student = intern_users.student()
    domain = make_domain(c, admin)
    import boto3

    from internships.settings import settings

    # the key must be one the sign route issued to this admin (issue 32 item 4)
    signed = c.post("/api/admin/resources/sign", json={"filename": "guide.pdf", "content_type": "application/pdf",
                                                       "resource_type": "document"},
                    headers=admin.headers)
    assert signed.status == 200, signed.text
    key = signed.json()["file_key"]
    boto3.client("s3", region_name="us-east-1").put_object(Bucket=settings().files_bucket,
                                                           Key=key, Body=b"%PDF-1.4 guide")
    for body in ({"title": "Guide", "file_key": key, "resource_type": "document"},
                 {"title": "Docs", "url": "https://docs.example.com/", "resource_type": "link"}):
        r = c.post("/api/admin/resources", json={"domain_id": domain["id"], "week": 1, **body}, headers=admin.headers)
        assert r.status == 201, r.text
    e = enroll_and_pay(c, student, domain, intern_seed)
    r = c.get(f"/api/resources/{e['id']}", headers=student.headers)
    assert r.status == 200, r.text
    items = {x["title"]: x for x in r.json()["weeks"][0]["resources"]}
    guide = items["Guide"]
    assert guide["downloadUrl"] and guide["url"] == guide["downloadUrl"]
    parts = urllib.parse.urlsplit(guide["downloadUrl"])
    assert parts.path.endswith("/" + key) and "X-Amz-Signature" in parts.query
    assert items["Docs"]["url"] == "https://docs.example.com/" and items["Docs"]["downloadUrl"] is None
