"""``make demo``: fill a running ``make dev`` with a small, realistic data set through the API.

Everything goes through the services' HTTP routes (and, for exams sign-in, the emulator's Cognito,
as a browser app would), with the credentials ``make dev`` wrote to ``.local/dev.json``:

* exams: a client with its client admin, three students, a question bank, a published test and a
  graded attempt (docs/exams-core.md: the super admin creates the client and its admin; the
  client admin authors);
* campaigns: a list, three contacts, a template and a campaign sent with the sandbox provider
  (the dispatcher's schedule is fired now through the runtime's control endpoint);
* internships: a domain with three milestones, a student whose enrollment is paid with the payment
  stand-in's signature (docs/internships-journey.md), milestones reviewed, the enrollment approved:
  an invoice and a certificate.

Each run adds a new set (names carry a short run id). Ends by printing where to look.
Usage: ``python tools/demo.py [--dev-json .local/dev.json]``.
"""
from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import requests

PASSWORD = "Demo-Passw0rd!"
TIMEOUT = 60


class DemoError(RuntimeError):
    pass


def check(r: requests.Response, *expected: int) -> Any:
    if r.status_code not in (expected or (200,)):
        raise DemoError(f"{r.request.method} {r.request.url}: {r.status_code} {r.text[:500]}")
    return r.json() if r.content else None


class Api:
    def __init__(self, base: str, headers: dict[str, str] | None = None) -> None:
        self.base = base.rstrip("/")
        self.s = requests.Session()
        self.s.headers.update(headers or {})

    def __call__(self, method: str, path: str, *expected: int, headers: dict[str, str] | None = None,
                 **kw: Any) -> Any:
        return check(self.s.request(method, self.base + path, headers=headers, timeout=TIMEOUT, **kw), *expected)


# ---------------------------------------------------------------- exams
QUESTIONS = [
    ("Which planet is known as the Red Planet?", "Venus", "Mars", "Jupiter", "Mercury", "B"),
    ("What is 12 x 12?", "124", "144", "132", "154", "B"),
    ("Which gas do plants absorb for photosynthesis?", "Oxygen", "Nitrogen", "Carbon dioxide", "Helium", "C"),
    ("Who wrote 'Gitanjali'?", "Rabindranath Tagore", "R. K. Narayan", "Premchand", "Kalidasa", "A"),
    ("What is the boiling point of water at sea level?", "90 C", "100 C", "110 C", "120 C", "B"),
]


def exams(dev: dict, run: str) -> dict:
    import boto3

    ex = dev["exams"]
    idp = boto3.client("cognito-idp", endpoint_url=dev["aws"]["endpoint_url"], region_name=dev["aws"]["region"],
                       aws_access_key_id="local", aws_secret_access_key="local")

    def sign_in(email: str, password: str = PASSWORD) -> dict[str, str]:
        r = idp.initiate_auth(ClientId=ex["identity"]["client_id"], AuthFlow="USER_PASSWORD_AUTH",
                              AuthParameters={"USERNAME": email, "PASSWORD": password})
        return {"Authorization": f"Bearer {r['AuthenticationResult']['IdToken']}"}

    api = Api(ex["base_url"])
    sa = sign_in(ex["super_admin"]["email"], ex["super_admin"]["password"])
    client = api("POST", "/api/clients", 201, headers=sa, json={"name": f"Sunrise Public School {run}",
                                                                 "plan_id": "growth"})["data"]
    admin_email = f"principal.{run}@sunrise.example.com"
    api("POST", "/api/create-user", 201, headers=sa, json={"email": admin_email, "password": PASSWORD,
                                                           "name": "Meera Iyer", "role": "client_admin",
                                                           "client_id": client["id"]})
    ca = sign_in(admin_email)
    students = []
    for name in ("Aarav Sharma", "Diya Patel", "Kabir Singh"):
        email = f"{name.split()[0].lower()}.{run}@sunrise.example.com"
        sid = api("POST", "/api/create-user", 201, headers=ca, json={"email": email, "password": PASSWORD,
                                                                     "name": name, "role": "student"})["data"]["id"]
        students.append((sid, email, name))
    qids = []
    for text, a, b, c, d, correct in QUESTIONS:
        q = api("POST", "/api/questions", 201, headers=ca, json={
            "question_text": text, "question_type": "mcq", "option_a": a, "option_b": b, "option_c": c,
            "option_d": d, "correct_answer": correct, "marks": 2, "difficulty": "easy"})["data"]
        qids.append((q["id"], correct))
    test = api("POST", "/api/tests", 201, headers=ca, json={
        "test_name": "General Knowledge - Term 1", "timer": 20, "question_ids": [q for q, _ in qids],
        "negative_marking": 1, "negative_marks_ratio": 0.25, "show_results_after_submission": True})["data"]
    published = api("POST", f"/api/tests/{test['id']}/publish", headers=ca)["data"]
    sid, email, name = students[0]
    st = sign_in(email)
    attempt = api("POST", "/api/attempts", 201, headers=st, json={"test_id": test["id"], "student_id": sid})["data"]
    answers = [{"attempt_id": attempt["id"], "question_id": q, "selected_option": correct if i < 4 else "A",
                "marked_for_review": False} for i, (q, correct) in enumerate(qids)]
    api("POST", "/api/attempt-answers", headers=st, json=answers)
    result = api("POST", "/api/rpc/submit-attempt", headers=st, json={"attempt_id": attempt["id"], "time_taken": 300})
    return {"client": client["id"], "client_admin": admin_email, "students": [e for _, e, _ in students],
            "password": PASSWORD, "test_id": test["id"], "share_code": published.get("share_code"),
            "attempt_id": attempt["id"], "score": f"{result['data']['score']:g}/{result['data']['total_marks']:g}"}


# ---------------------------------------------------------------- campaigns
def campaigns(dev: dict, run: str, control_url: str | None) -> dict:
    cp = dev["campaigns"]
    api = Api(cp["base_url"], {"Authorization": f"Bearer {cp['api_key']}"})
    lst = api("POST", "/lists", 201, json={"name": f"Monsoon newsletter {run}"})["data"]
    people = [("Priya", "Nair"), ("Rohan", "Gupta"), ("Ananya", "Rao")]
    for first, last in people:
        api("POST", "/contacts", 201, json={"email": f"{first.lower()}.{run}@example.com", "first_name": first,
                                            "last_name": last, "lists": [lst["id"]], "tags": ["demo"]})
    tpl = api("POST", "/templates", 201, json={
        "name": f"Monsoon sale {run}", "subject": "Hello {{first_name}}, the monsoon sale is on",
        "content": "<p>Hi {{first_name}},</p><p>Our monsoon sale starts today.</p>"
                   '<p><a href="https://shop.example.com/monsoon">See the offers</a></p>'
                   '<p><a href="{{unsubscribe_url}}">Unsubscribe</a></p>'})["data"]
    camp = api("POST", "/campaigns", 201, json={
        "name": f"Monsoon sale {run}", "subject": "Hello {{first_name}}, the monsoon sale is on",
        "template_id": tpl["id"], "audience": {"type": "list", "list_id": lst["id"]},
        "schedule": {"type": "immediate"}, "tracking": {"track_opens": True, "track_clicks": True},
        "settings": {"from_email": "news@example.com", "from_name": "Demo Store",
                     "provider": {"provider": "sandbox"}}})["data"]
    api("POST", f"/campaigns/{camp['id']}/send", json={"confirm": True})
    if control_url:  # the dispatcher's one-minute schedule, fired now
        check(requests.post(control_url + "/invoke", json={"function": "DispatcherFunction", "service": "campaigns"},
                            timeout=120))
    status = "scheduled"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        status = api("GET", f"/campaigns/{camp['id']}")["data"]["status"]
        if status == "sent":
            break
        time.sleep(1)
    return {"list_id": lst["id"], "template_id": tpl["id"], "campaign_id": camp["id"], "status": status}


# ---------------------------------------------------------------- internships
def internships(dev: dict, run: str) -> dict:
    it = dev["internships"]
    api = Api(it["base_url"])
    sa = it["super_admin"]
    admin = {"Authorization": "Bearer " + api("POST", "/api/auth/login", json={
        "email": sa["email"], "password": sa["password"]})["token"]}
    slug = f"full-stack-{run}"
    api("POST", "/api/admin/domains", 201, headers=admin, json={
        "name": "Full Stack Web Development", "slug": slug, "is_active": True,
        "description": "Build and ship a web application with a Python API and a React front end.",
        "prices": {"1": 4999, "2": 8999, "3": 11999},
        "milestones": [{"title": "Set up the project", "description": "Repository, tooling, first deploy"},
                       {"title": "Build the API", "description": "Routes, data model, tests"},
                       {"title": "Ship the front end", "description": "Pages, sign-in, deployment"}]})
    domain = api("GET", f"/api/domains/{slug}")["domain"]
    email = f"asha.{run}@example.com"
    student = {"Authorization": "Bearer " + api("POST", "/api/auth/register", json={
        "name": "Asha Verma", "email": email, "password": PASSWORD, "phone": "+919812345678",
        "college": "Delhi Technological University"})["token"]}
    e = api("POST", "/api/enrollments/create", headers=student,
            json={"domainId": domain["id"], "duration": 1})["enrollment"]
    order, pay = e["order"]["orderId"], "pay_" + uuid.uuid4().hex[:14]
    # what the payment provider's checkout returns: HMAC-SHA256(key_secret, order_id|payment_id)
    sig = hmac.new(it["payments"]["key_secret"].encode(), f"{order}|{pay}".encode(), hashlib.sha256).hexdigest()
    api("POST", "/api/enrollments/verify-payment", headers=student,
        json={"enrollmentId": e["id"], "orderId": order, "paymentId": pay, "signature": sig})
    for i, m in enumerate(api("GET", f"/api/milestones?enrollmentId={e['id']}", headers=student)["milestones"]):
        api("POST", f"/api/milestones/{m['id']}/submit", headers=student, json={
            "submissionNotes": f"Week {i + 1}: done, see the repository",
            "submissionUrl": "https://github.com/asha-verma/full-stack-project"})
        api("POST", f"/api/admin/milestones/{m['id']}/review", headers=admin,
            json={"action": "approve", "remarks": "Well done"})
    cert = api("POST", f"/api/admin/enrollments/{e['id']}/approve", headers=admin, json={})["certificateId"]
    invoice = api("GET", "/api/invoices/my-invoices?limit=5", headers=student)["invoices"][0]
    return {"domain": slug, "student": email, "password": PASSWORD, "enrollment_id": e["id"],
            "invoice": invoice["invoiceNumber"], "invoice_id": invoice["id"], "certificate_id": cert}


def report(dev: dict, out: dict) -> str:
    lines = ["Demo data created through the API.", ""]
    if "exams" in out:
        x, base = out["exams"], dev["exams"]["base_url"]
        lines += ["exams  " + base + "/docs",
                  f"  client admin {x['client_admin']} / students {', '.join(x['students'])} (password {x['password']})",
                  f"  published test {x['test_id']} (share code {x['share_code']}); graded attempt {x['attempt_id']}: "
                  f"score {x['score']}",
                  f"  report: GET {base}/api/attempts/{x['attempt_id']}/report (as the student or the client admin)", ""]
    if "campaigns" in out:
        x, base = out["campaigns"], dev["campaigns"]["base_url"]
        lines += ["campaigns  " + base + "/docs  (Authorization: Bearer <campaigns.api_key of dev.json>)",
                  f"  list {x['list_id']}, template {x['template_id']}, campaign {x['campaign_id']}: {x['status']}",
                  f"  rendered mails: GET {base}/email/outbox?campaign_id={x['campaign_id']}", ""]
    if "internships" in out:
        x, base = out["internships"], dev["internships"]["base_url"]
        lines += ["internships  " + base + "/docs",
                  f"  student {x['student']} (password {x['password']}), domain {x['domain']}, "
                  f"enrollment {x['enrollment_id']}",
                  f"  invoice {x['invoice']}: GET {base}/api/invoices/{x['invoice_id']}/download-simple (as the student)",
                  f"  certificate {x['certificate_id']}: {base}/verify/{x['certificate_id']}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dev-json", default=".local/dev.json", help="written by `make dev`")
    ap.add_argument("--only", default="exams,campaigns,internships", help="comma separated services")
    ap.add_argument("--json", action="store_true", help="print what was created as JSON")
    args = ap.parse_args(argv)
    path = Path(args.dev_json)
    if not path.exists():
        print(f"{path} not found: start `make dev` first (it writes the credentials there).", file=sys.stderr)
        return 2
    dev = json.loads(path.read_text())
    runtime = path.parent / "runtime.json"
    control = json.loads(runtime.read_text()).get("control_url") if runtime.exists() else None
    run = uuid.uuid4().hex[:6]
    out: dict[str, Any] = {}
    try:
        for name in [s.strip() for s in args.only.split(",") if s.strip()]:
            if name not in dev:
                print(f"{name}: not running (no block in {path}); skipped", file=sys.stderr)
            elif name == "exams":
                out["exams"] = exams(dev, run)
            elif name == "campaigns":
                out["campaigns"] = campaigns(dev, run, control)
            elif name == "internships":
                out["internships"] = internships(dev, run)
    except (DemoError, requests.RequestException) as exc:
        print(f"demo failed: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(out, indent=2) if args.json else report(dev, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
