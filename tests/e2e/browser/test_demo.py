"""``make demo`` (issue 31 item 6): tools/demo.py fills a running runtime through the API; what it
reports is then read back through the API as a client would."""
from __future__ import annotations

import boto3
import requests

T = 30


def test_demo_creates_the_exams_set(browser_runtime, demo):
    dev, _ = browser_runtime
    x = demo["exams"]
    assert len(x["students"]) == 3 and x["share_code"]
    idp = boto3.client("cognito-idp", endpoint_url=dev["aws"]["endpoint_url"], region_name=dev["aws"]["region"],
                       aws_access_key_id="local", aws_secret_access_key="local")
    token = idp.initiate_auth(ClientId=dev["exams"]["identity"]["client_id"], AuthFlow="USER_PASSWORD_AUTH",
                              AuthParameters={"USERNAME": x["client_admin"], "PASSWORD": x["password"]}
                              )["AuthenticationResult"]["IdToken"]
    h = {"Authorization": f"Bearer {token}"}
    base = dev["exams"]["base_url"]
    got = requests.get(f"{base}/api/attempts/{x['attempt_id']}", headers=h, timeout=T).json()["data"]
    assert got["status"] == "submitted" and got["score"] == 7.5  # 4 right x 2, 1 wrong x -0.5
    assert x["score"] == "7.5/10"
    qs = requests.get(f"{base}/api/questions", headers=h, timeout=T).json()
    assert qs["pagination"]["total"] == 5
    test = requests.get(f"{base}/api/tests", params={"share_code": x["share_code"]}, timeout=T).json()["data"]
    assert [t["id"] for t in test] == [x["test_id"]]


def test_demo_creates_the_campaigns_set(browser_runtime, demo):
    dev, _ = browser_runtime
    x, c = demo["campaigns"], dev["campaigns"]
    h = {"Authorization": f"Bearer {c['api_key']}"}
    assert x["status"] == "sent"
    camp = requests.get(f"{c['base_url']}/campaigns/{x['campaign_id']}", headers=h, timeout=T).json()["data"]
    assert camp["status"] == "sent" and camp["stats"]["sent"] == 3
    lst = requests.get(f"{c['base_url']}/lists/{x['list_id']}", headers=h, timeout=T).json()["data"]
    assert lst["contact_count"] == 3
    msgs = requests.get(f"{c['base_url']}/email/outbox", params={"campaign_id": x["campaign_id"]}, headers=h,
                        timeout=T).json()["data"]["messages"]
    assert sorted(m["subject"].split(",")[0] for m in msgs) == ["Hello Ananya", "Hello Priya", "Hello Rohan"]


def test_demo_creates_the_internships_set(browser_runtime, demo):
    dev, _ = browser_runtime
    x, base = demo["internships"], dev["internships"]["base_url"]
    v = requests.get(f"{base}/api/certificates/verify/{x['certificate_id']}", timeout=T)
    assert v.status_code == 200 and v.json()["certificate"]["studentName"] == "Asha Verma"
    token = requests.post(f"{base}/api/auth/login", json={"email": x["student"], "password": x["password"]},
                          timeout=T).json()["token"]
    h = {"Authorization": f"Bearer {token}"}
    enr = requests.get(f"{base}/api/enrollments/my-enrollments", headers=h, timeout=T).json()["enrollments"]
    assert [(e["id"], e["status"]) for e in enr] == [(x["enrollment_id"], "completed")]
    inv = requests.get(f"{base}/api/invoices/my-invoices", headers=h, timeout=T).json()["invoices"]
    assert [i["invoiceNumber"] for i in inv] == [x["invoice"]]
    pdf = requests.get(f"{base}/api/invoices/{x['invoice_id']}/download-simple", headers=h, timeout=T)
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")


def test_demo_report_says_where_to_look(browser_runtime, demo):
    import importlib.util

    from tests.platform.runtime_proc import ROOT

    spec = importlib.util.spec_from_file_location("demo_tool", ROOT / "tools" / "demo.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    dev, _ = browser_runtime
    text = mod.report(dev, demo)
    ib = dev["internships"]["base_url"]
    assert f"{ib}/verify/{demo['internships']['certificate_id']}" in text
    assert dev["exams"]["base_url"] + "/docs" in text and demo["campaigns"]["campaign_id"] in text
    assert mod.main(["--dev-json", "/nonexistent/dev.json"]) == 2  # no `make dev` running: says so
