"""Issues 9 and 10 "Done when", end to end through the internships HTTP front of a running
``python -m local_runtime`` (see conftest). Every JSON answer is also checked against the
OpenAPI document the front serves (``/openapi.json``), so the documented shapes stay truthful."""
from __future__ import annotations

import hashlib
import hmac
import re
import shutil
import subprocess
import uuid

import jsonschema
import pytest
import requests
from referencing import Registry, Resource

PW = "Str0ngPassw0rd"


class Client:
    def __init__(self, base: str) -> None:
        self.base = base
        self.spec = requests.get(base + "/openapi.json", timeout=10).json()
        self.registry = Registry().with_resource("urn:spec", Resource.from_contents(
            {**self.spec, "$schema": "https://json-schema.org/draft/2020-12/schema"}))
        self.checked: set[tuple[str, str, int]] = set()

    def _template(self, method: str, path: str) -> str:
        path = path.split("?", 1)[0]
        for tpl, ops in self.spec["paths"].items():
            if method.lower() in ops and re.fullmatch(re.sub(r"\{[^/]+\}", "[^/]+", tpl), path):
                return tpl
        raise AssertionError(f"{method} {path} is not in the OpenAPI document")

    def call(self, method: str, path: str, *, token: str | None = None, **kw) -> requests.Response:
        headers = dict(kw.pop("headers", {}) or {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        r = requests.request(method, self.base + path, headers=headers, timeout=30, allow_redirects=False, **kw)
        tpl = self._template(method, path)
        responses = self.spec["paths"][tpl][method.lower()]["responses"]
        assert str(r.status_code) in responses, f"{method} {tpl} answered undocumented {r.status_code}: {r.text}"
        content = responses[str(r.status_code)].get("content") or {}
        if "application/json" in content:
            schema = {"$ref": "urn:spec#/components/schemas/_"} if False else content["application/json"]["schema"]
            schema = _rebase(schema)
            jsonschema.Draft202012Validator(schema, registry=self.registry).validate(r.json())
            self.checked.add((method, tpl, r.status_code))
        return r

    def get(self, path, **kw):
        return self.call("GET", path, **kw)

    def post(self, path, **kw):
        return self.call("POST", path, **kw)


def _rebase(schema):
    """Point ``#/components/...`` references at the registered document."""
    if isinstance(schema, dict):
        return {k: ("urn:spec" + v if k == "$ref" and isinstance(v, str) and v.startswith("#/") else _rebase(v))
                for k, v in schema.items()}
    if isinstance(schema, list):
        return [_rebase(x) for x in schema]
    return schema


@pytest.fixture(scope="module")
def c(intern):
    return Client(intern[0])


@pytest.fixture(scope="module")
def admin_token(c, intern):
    sa = intern[1]["super_admin"]
    r = c.post("/api/auth/login", json={"email": sa["email"], "password": sa["password"]})
    assert r.status_code == 200, r.text
    return r.json()["token"]


def _set_cookies(r: requests.Response) -> dict[str, str]:
    return {h.split("=", 1)[0]: h for h in r.raw.headers.get_all("Set-Cookie")}


def _register(c, name: str) -> tuple[str, str]:
    email = f"{name.lower()}.{uuid.uuid4().hex[:6]}@example.com"
    r = c.post("/api/auth/register", json={"name": name, "email": email, "password": PW, "phone": "+919812345678",
                                           "college": "IIT Test"})
    assert r.status_code == 200, r.text
    return email, r.json()["token"]


@pytest.fixture(scope="module")
def journey(c, intern, admin_token):
    """Issue 9: register → login cookies → enroll with a coupon → verify payment → milestones unlock as a
    reviewer approves → admin approves → public certificate → invoice PDF. Returns what issue 10 reuses."""
    key_secret = intern[1]["payments"]["key_secret"]
    # 1. register, then sign in: cookies with the right flags
    email, _ = _register(c, "Asha")
    r = c.post("/api/auth/login", json={"email": email, "password": PW})
    assert r.status_code == 200
    token = r.json()["token"]
    ck = _set_cookies(r)
    access, refresh, csrf = ck["auth-token"], ck["refresh-token"], ck["csrf-token"]
    for h in (access, refresh):
        assert "HttpOnly" in h and "SameSite=Lax" in h
        assert "Secure" not in h  # local http only; Secure everywhere else
    assert "Path=/;" in access + ";" and "Max-Age=900" in access
    assert "Path=/api/auth" in refresh and "Max-Age=2592000" in refresh
    assert "HttpOnly" not in csrf  # double-submit cookie must be readable by scripts
    # the cookie alone authenticates a safe request
    me = c.get("/api/auth/me", headers={"Cookie": "auth-token=" + access.split(";")[0].split("=", 1)[1]})
    assert me.status_code == 200 and me.json()["user"]["email"] == email

    # catalogue through the admin API (super admin from dev.json)
    slug = f"web-{uuid.uuid4().hex[:6]}"
    r = requests.post(c.base + "/api/admin/domains", headers={"Authorization": f"Bearer {admin_token}"}, timeout=10,
                      json={"name": "Web Development", "slug": slug, "description": "Full stack",
                            "prices": {"1": 4999, "2": 8999, "3": 11999}, "is_active": True,
                            "milestones": [{"title": "Setup", "description": "Tooling"},
                                           {"title": "Build", "description": "Core"},
                                           {"title": "Ship", "description": "Deploy"}]})
    assert r.status_code == 201, r.text
    code = f"SAVE{uuid.uuid4().hex[:5].upper()}"
    r = requests.post(c.base + "/api/admin/coupons", headers={"Authorization": f"Bearer {admin_token}"}, timeout=10,
                      json={"code": code, "discount_type": "percent", "discount_value": 20, "max_uses": 5,
                            "expires_at": None, "domain_ids": [], "is_active": True})
    assert r.status_code == 201, r.text
    domain = c.get(f"/api/domains/{slug}").json()["domain"]
    assert any(d["slug"] == slug for d in c.get("/api/domains").json()["domains"])

    # 2. enroll with the coupon
    v = c.post("/api/coupons/validate", token=token, json={"code": code, "domainId": domain["id"], "amount": 4999})
    assert v.json()["valid"] is True and v.json()["finalAmount"] == pytest.approx(3999.2)
    r = c.post("/api/enrollments/create", token=token, json={"domainId": domain["id"], "duration": 1,
                                                             "couponCode": code})
    assert r.status_code == 200, r.text
    e = r.json()["enrollment"]
    assert e["status"] == "pending" and e["paymentStatus"] == "created"
    assert e["amount"] == pytest.approx(3999.2) and e["discount"] == pytest.approx(999.8)
    assert e["order"]["amount"] == 399920 and e["order"]["currency"] == "INR"
    assert c.post("/api/enrollments/create", token=token, json={"domainId": domain["id"], "duration": 1}
                  ).status_code == 409

    # 3. verify payment with HMAC-SHA256(key_secret, order_id|payment_id) from dev.json
    pay = "pay_" + uuid.uuid4().hex[:14]
    order = e["order"]["orderId"]
    bad = c.post("/api/enrollments/verify-payment", token=token, json={
        "enrollmentId": e["id"], "orderId": order, "paymentId": pay, "signature": "0" * 64})
    assert bad.status_code == 400
    sig = hmac.new(key_secret.encode(), f"{order}|{pay}".encode(), hashlib.sha256).hexdigest()
    body = {"enrollmentId": e["id"], "orderId": order, "paymentId": pay, "signature": sig}
    r = c.post("/api/enrollments/verify-payment", token=token, json=body)
    assert r.status_code == 200, r.text
    assert r.json()["enrollment"]["status"] == "active" and r.json()["enrollment"]["paymentStatus"] == "paid"
    again = c.post("/api/enrollments/verify-payment", token=token, json=body)
    assert again.status_code == 200 and again.json()["enrollment"]["status"] == "active"

    # 4. milestones unlock in order as a reviewer (created by the super admin) approves
    rev_email = f"reviewer.{uuid.uuid4().hex[:6]}@example.com"
    r = requests.post(c.base + "/api/admin/users", headers={"Authorization": f"Bearer {admin_token}"}, timeout=10,
                      json={"email": rev_email, "password": PW, "name": "Ravi Reviewer", "role": "reviewer"})
    assert r.status_code == 201, r.text
    reviewer = c.post("/api/auth/login", json={"email": rev_email, "password": PW}).json()["token"]
    ms = c.get(f"/api/milestones?enrollmentId={e['id']}", token=token).json()["milestones"]
    assert [m["title"] for m in ms] == ["Setup", "Build", "Ship"]
    assert [m["locked"] for m in ms] == [False, True, True]
    locked = c.post(f"/api/milestones/{ms[1]['id']}/submit", token=token,
                    json={"submissionNotes": "Trying to skip ahead of the plan"})
    assert locked.status_code == 409
    for i, m in enumerate(ms):
        r = c.post(f"/api/milestones/{m['id']}/submit", token=token,
                   json={"submissionNotes": f"Week {i + 1}: done, see repository", "submissionUrl":
                         "https://github.com/asha/project"})
        assert r.status_code == 200, r.text
        r = requests.post(f"{c.base}/api/admin/milestones/{m['id']}/review", timeout=10,
                          headers={"Authorization": f"Bearer {reviewer}"}, json={"action": "approve",
                                                                                 "remarks": "Good work"})
        assert r.status_code == 200, r.text
        now = c.get(f"/api/milestones?enrollmentId={e['id']}", token=token).json()["milestones"]
        assert [x["status"] for x in now][: i + 1] == ["reviewed"] * (i + 1)
        assert [x["locked"] for x in now] == [False] * min(i + 2, 3) + [True] * max(0, 3 - (i + 2))
    # a reviewer cannot approve the enrollment (manage_enrollments)
    assert requests.post(f"{c.base}/api/admin/enrollments/{e['id']}/approve", timeout=10,
                         headers={"Authorization": f"Bearer {reviewer}"}).status_code == 403

    # 5. the admin approves; the certificate verifies publicly (no credentials)
    r = requests.post(f"{c.base}/api/admin/enrollments/{e['id']}/approve", timeout=30,
                      headers={"Authorization": f"Bearer {admin_token}"}, json={})
    assert r.status_code == 200, r.text
    cert_id = r.json()["certificateId"]
    assert re.fullmatch(r"CERT-\d{2}-[A-Z0-9]{6}", cert_id)
    pub = c.get(f"/api/certificates/verify/{cert_id}")
    assert pub.status_code == 200 and pub.json()["valid"] is True
    assert pub.json()["certificate"]["studentName"] == "Asha"
    assert c.get("/api/certificates/verify/CERT-00-NOPE00").status_code == 404
    mine = c.get("/api/certificates/my-certificates", token=token).json()["certificates"]
    assert [x["certificateId"] for x in mine] == [cert_id]
    pdf = c.get(f"/api/certificates/{cert_id}/download", token=token)
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    assert c.get("/api/enrollments/my-enrollments", token=token).json()["enrollments"][0]["status"] == "completed"

    # 6. the invoice PDF downloads and shows the amounts
    inv = c.get("/api/invoices/my-invoices?limit=5", token=token).json()
    assert inv["total"] == 1
    invoice = inv["invoices"][0]
    assert re.fullmatch(r"INV/\d{2}-\d{2}/\d{6}", invoice["invoiceNumber"])
    assert invoice["amount"] == pytest.approx(3999.2)
    r = c.get(f"/api/invoices/{invoice['id']}/download-simple", token=token)
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/pdf" and r.content.startswith(b"%PDF")
    other_email, other_token = _register(c, "Bharat")
    assert c.get(f"/api/invoices/{invoice['id']}/download-simple", token=other_token).status_code == 404
    return {"token": token, "email": email, "other_token": other_token, "other_email": other_email,
            "domain": domain, "invoice": invoice, "invoice_pdf": r.content, "csrf": csrf}


def test_issue9_journey(journey, tmp_path):
    if not shutil.which("pdftotext"):
        pytest.skip("pdftotext (poppler-utils) not installed: the PDF text check needs it")
    pdf = tmp_path / "invoice.pdf"
    pdf.write_bytes(journey["invoice_pdf"])
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    inv = journey["invoice"]
    assert inv["invoiceNumber"] in text
    for amount in (inv["amount"], inv["taxableValue"]):
        assert f"{amount:,.2f}" in text or f"{amount:.2f}" in text, (amount, text)
    tax = inv["igst"] or inv["cgst"]
    assert f"{tax:,.2f}" in text or f"{tax:.2f}" in text
    assert ("IGST" in text) or ("CGST" in text and "SGST" in text)
    if shutil.which("pdftoppm"):  # what a person looks at (kept with the test's tmp files)
        subprocess.run(["pdftoppm", "-png", "-r", "60", "-singlefile", str(pdf), str(tmp_path / "invoice")],
                       check=True)
        assert (tmp_path / "invoice.png").stat().st_size > 1000


def test_issue10_announcement_for_enrolled_students(c, journey, admin_token):
    r = requests.post(c.base + "/api/admin/announcements", headers={"Authorization": f"Bearer {admin_token}"},
                      timeout=10, json={"title": "Demo day on Friday", "content": "Show your project to mentors.",
                                        "type": "info", "category": "general", "target_audience": "enrolled",
                                        "priority": 5, "status": "active", "is_active": True})
    assert r.status_code == 201, r.text
    ann_id = r.json()["announcement"]["id"]
    student, outsider = journey["token"], journey["other_token"]
    seen = c.get("/api/announcements", token=student).json()
    assert [a["id"] for a in seen["announcements"]] == [ann_id] and seen["announcements"][0]["isRead"] is False
    assert c.get("/api/announcements/unread-count", token=student).json()["count"] == 1
    assert c.get("/api/announcements", token=outsider).json()["announcements"] == []
    assert c.get("/api/announcements/unread-count", token=outsider).json()["count"] == 0
    assert c.post(f"/api/announcements/{ann_id}/read", token=outsider).status_code == 404
    feed = c.get("/api/notifications", token=student).json()
    kinds = {n["type"] for n in feed["notifications"]}
    assert {"announcement", "enrollment", "milestone"} <= kinds
    # read marks and the unread count agree
    assert c.post(f"/api/announcements/{ann_id}/read", token=student).json()["read"] is True
    assert c.get("/api/announcements/unread-count", token=student).json()["count"] == 0
    assert c.get("/api/announcements", token=student).json()["announcements"][0]["isRead"] is True
    assert all(n.get("announcementId") != ann_id for n in c.get("/api/notifications", token=student
                                                                 ).json()["notifications"])


def _emails(c, admin_token, **q) -> list[dict]:
    r = requests.get(c.base + "/api/admin/email-queue", params={"limit": 100, **q}, timeout=10,
                     headers={"Authorization": f"Bearer {admin_token}"})
    assert r.status_code == 200, r.text
    return r.json()["emails"]


def test_issue10_newsletter_cron_and_tracking(c, intern, admin_token, journey):
    addr = f"reader.{uuid.uuid4().hex[:6]}@example.com"
    first = c.post("/api/newsletter/subscribe", json={"email": addr})
    assert first.status_code == 200 and first.json()["success"] is True and not first.json().get("alreadySubscribed")
    second = c.post("/api/newsletter/subscribe", json={"email": addr.upper()})
    assert second.status_code == 200 and second.json()["alreadySubscribed"] is True
    welcome = [m for m in _emails(c, admin_token, templateType="welcome") if m["to"] == addr]
    assert len(welcome) == 1 and welcome[0]["status"] == "pending"
    email_id = welcome[0]["id"]

    # cron: 401 without (or with a wrong) secret
    assert c.get("/api/cron/process-emails").status_code == 401
    assert c.get("/api/cron/process-emails", token="not-the-secret").status_code == 401
    secret = intern[1]["cron_secret"]
    run1 = c.get("/api/cron/process-emails", token=secret)
    assert run1.status_code == 200 and run1.json()["ok"] is True and run1.json()["sent"] >= 1
    assert {"ok", "sent", "skipped"} <= set(run1.json())
    sent = [m for m in _emails(c, admin_token, templateType="welcome") if m["id"] == email_id][0]
    assert sent["status"] == "sent" and sent["openedAt"] is None
    # a second run the same day sends nothing more
    run2 = c.get("/api/cron/process-emails", token=secret)
    assert run2.status_code == 200 and run2.json()["sent"] == 0
    for job in ("deadline-reminders", "inactive-students"):
        a = c.get(f"/api/cron/{job}", token=secret).json()
        b = c.get(f"/api/cron/{job}", token=secret).json()
        assert a["ok"] is True and {"sent", "skipped"} <= set(a) and b["sent"] == 0

    # the tracking pixel records the open once
    px = c.get(f"/api/email/track?id={email_id}")
    assert px.status_code == 200 and px.headers["Content-Type"] == "image/gif" and px.content[:6] == b"GIF89a"
    c.get(f"/api/email/track?id={email_id}")
    assert c.get("/api/email/track?id=unknown-id").status_code == 200
    opened = [m for m in _emails(c, admin_token, templateType="welcome") if m["id"] == email_id][0]
    assert opened["openedAt"] and opened["openCount"] == 1  # recorded once, not per load


def test_issue10_jobs_from_local_feed(c, admin_token, journey):
    r = requests.post(c.base + "/api/admin/jobs/fetch-rss", headers={"Authorization": f"Bearer {admin_token}"},
                      timeout=30)
    assert r.status_code == 200, r.text
    token = journey["token"]
    assert c.get("/api/jobs", token=token).status_code == 400
    found = c.get("/api/jobs?keyword=python", token=token).json()
    assert [j["title"] for j in found["jobs"]] == ["Python Backend Intern"] and found["total"] == 1
    sug = c.get("/api/jobs?suggestions=1&q=data", token=token).json()["suggestions"]
    assert "Data Science Intern" in sug
    job_id = found["jobs"][0]["id"]
    assert c.post("/api/jobs/saved", token=token, json={"jobId": job_id}).json()["saved"] is True
    assert c.post("/api/jobs/saved", token=token, json={"jobId": job_id}).json()["alreadySaved"] is True
    saved = c.get("/api/jobs/saved", token=token).json()
    assert [j["jobId"] for j in saved["jobs"]] == [job_id]
    assert c.call("DELETE", f"/api/jobs/saved?jobId={job_id}", token=token).json()["removed"] is True
    assert c.get("/api/jobs/saved", token=token).json()["jobs"] == []


def test_documented_shapes_were_checked(c, journey):
    """The schema checks above really ran on the student/public JSON routes."""
    assert len(c.checked) >= 20


def test_issue34_credential_over_http(c, journey):
    """Issue 34 through the local runtime's HTTP front (as ``make dev`` serves it), every JSON answer
    checked against the OpenAPI: the student's Open Badges credential verifies with joserfc and the
    key set served over HTTP; the verify route agrees and refuses a tampered copy; the badge PNG
    carries the same VC-JWT; the status list is a signed vc+jwt."""
    from urllib.parse import urlparse

    from joserfc import jwt
    from joserfc.jwk import KeySet

    token = journey["token"]
    cert = c.get("/api/certificates/my-certificates", token=token).json()["certificates"][0]
    d = c.get(cert["credentialUrl"], token=token).json()
    keys = KeySet.import_key_set(c.get("/api/credentials/jwks.json").json())
    with pytest.warns(Warning):  # joserfc: RFC 9864 deprecates "EdDSA" (docs/internships-credentials.md)
        tok = jwt.decode(d["jwt"], keys, algorithms=["EdDSA"])
    assert tok.claims["id"].endswith(cert["certificateId"]) and tok.claims == {**d["credential"], **{
        k: tok.claims[k] for k in ("iss", "jti", "nbf", "iat")}}
    assert c.post("/api/credentials/verify", json={"credential": d["jwt"]}).json()["valid"] is True
    forged = d["jwt"][:-4] + ("AAAA" if not d["jwt"].endswith("AAAA") else "BBBB")
    assert c.post("/api/credentials/verify", json={"credential": forged}).json()["reason"] == "bad_signature"
    png = c.get(cert["badgeUrl"], token=token)
    assert png.headers["Content-Type"] == "image/png" and d["jwt"].encode() in png.content
    st = c.get(urlparse(d["statusListCredential"]).path)
    assert st.headers["Content-Type"] == "application/vc+jwt"
    with pytest.warns(Warning):
        assert jwt.decode(st.text, keys, algorithms=["EdDSA"]).claims["type"][-1] == "BitstringStatusListCredential"
    assert c.get("/api/credentials/issuer").json()["id"] == tok.claims["issuer"]["id"]
