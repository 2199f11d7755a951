"""Issue 34: contact exports of Mailchimp, SendGrid and listmonk import with their own column names,
the mapping is shown in the first pass (dry_run) and in the result, and unsubscribed/cleaned contacts
stay out of the active audience (hand-written fixtures in each platform's export layout)."""
from __future__ import annotations

import json
from pathlib import Path

import boto3

from tests.campaigns.audience.test_audience_import_export import _sqs_event, multipart

FIX = Path(__file__).parent / "fixtures"


def _import(camp, name: str, **fields: str) -> dict:
    body, headers = multipart((FIX / name).read_bytes(), **fields)
    r = camp.post("/contacts/import", body=body, headers=headers)
    assert r.status == 200, r.text
    return r.json()["data"]


def _contact(camp, email: str) -> dict:
    got = camp.get("/contacts", query={"search": email.split("@")[0]}).json()["data"]["contacts"]
    return next(c for c in got if c["email"] == email)


def _fields(mapping: dict) -> dict:
    return {c["column"]: c["field"] for c in mapping["columns"]}


def test_mailchimp_first_pass_shows_mapping_and_writes_nothing(camp):
    d = _import(camp, "unsubscribed_members_export_1a2b3c.csv", dry_run="true")
    assert d["dry_run"] is True and d["valid"] == 1 and d["statuses"]["unsubscribed"] == 1 and d["imported"] == 0
    m = d["mapping"]
    assert m["platform"] == "mailchimp" and m["file_status"] == "unsubscribed"
    f = _fields(m)
    assert (f["Email Address"], f["First Name"], f["Last Name"], f["Phone Number"], f["TAGS"]) == \
        ("email", "first_name", "last_name", "phone", "tags")
    assert f["Company"] == "custom:Company" and f["Birthday"] == "custom:Birthday"
    assert {"MEMBER_RATING", "OPTIN_TIME", "LEID", "EUID", "UNSUB_TIME", "UNSUB_REASON"} <= set(m["ignored"])
    assert camp.get("/contacts").json()["data"]["pagination"]["total"] == 0


def test_mailchimp_status_files(camp):
    d = _import(camp, "subscribed_members_export_1a2b3c.csv")
    assert (d["imported"], d["errors"], d["mapping"]["file_status"]) == (2, [], None)
    ana = _contact(camp, "ana@example.com")
    assert ana["status"] == "active" and ana["tags"] == ["Customer", "VIP"]
    assert (ana["first_name"], ana["last_name"], ana["phone"]) == ("Ana", "Lima", "+351210000000")
    assert ana["custom_fields"] == {"Address": "Rua 1  Lisboa  11 1000-001 PT", "Birthday": "03/14", "Company": "Acme"}
    assert _import(camp, "unsubscribed_members_export_1a2b3c.csv")["imported"] == 1
    assert _import(camp, "cleaned_members_export_1a2b3c.csv")["imported"] == 1
    assert _contact(camp, "cy@example.com")["status"] == "unsubscribed"
    assert _contact(camp, "dee@example.com")["status"] == "unsubscribed"
    assert camp.get("/contacts", query={"status": "active"}).json()["data"]["pagination"]["total"] == 2


def test_unsubscribed_stays_unsubscribed_on_merge(camp):
    _import(camp, "unsubscribed_members_export_1a2b3c.csv")
    # a later "subscribed" file with the same address never makes it active again
    csv_text = ('"Email Address","First Name",LEID,EUID,MEMBER_RATING\r\n'
                'cy@example.com,Cyrus,1,2,3\r\n')
    body, headers = multipart(csv_text.encode(), update_existing="true")
    d = camp.post("/contacts/import", body=body, headers=headers).json()["data"]
    assert d["updated"] == 1
    cy = _contact(camp, "cy@example.com")
    assert cy["first_name"] == "Cyrus" and cy["status"] == "unsubscribed"
    # an active contact merged from an unsubscribed export becomes unsubscribed
    camp.post("/contacts", json={"email": "hal@example.com"})
    d = _import(camp, "listmonk_subscribers.csv", update_existing="true")
    assert _contact(camp, "hal@example.com")["status"] == "unsubscribed"


def test_sendgrid_export(camp):
    d = _import(camp, "sendgrid_contacts_export.csv")
    assert d["mapping"]["platform"] == "sendgrid" and d["imported"] == 2 and d["errors"] == []
    f = _fields(d["mapping"])
    assert (f["EMAIL"], f["FIRST_NAME"], f["LAST_NAME"], f["PHONE_NUMBER"]) == ("email", "first_name", "last_name", "phone")
    assert {"CONTACT_ID", "CREATED_AT", "UPDATED_AT"} == set(d["mapping"]["ignored"])
    eve = _contact(camp, "eve@example.com")
    assert eve["phone"] == "+15555550100" and eve["status"] == "active"
    assert eve["custom_fields"] == {"address_line_1": "1 Main St", "city": "Springfield", "state_province_region": "IL",
                                    "postal_code": "62701", "country": "US", "plan": "pro", "signup_source": "webinar"}


def test_listmonk_export(camp):
    d = _import(camp, "listmonk_subscribers.csv")
    assert d["mapping"]["platform"] == "listmonk" and d["imported"] == 2
    assert d["errors"] == [{"line": 4, "error": "attributes must be a JSON object"}]
    assert set(d["mapping"]["ignored"]) == {"uuid", "created_at", "updated_at"}
    gia = _contact(camp, "gia@example.com")
    assert (gia["first_name"], gia["last_name"], gia["status"]) == ("Gia", "Maria Rossi", "active")
    assert gia["custom_fields"] == {"city": "Bengaluru", "projects": "3", "stack": '["go","python"]'}
    assert _contact(camp, "hal@example.com")["status"] == "unsubscribed"


def test_generic_status_column_and_unknown_status(camp):
    csv_text = "email,status\r\na@example.com,unsubscribed\r\nb@example.com,maybe\r\nc@example.com,\r\n"
    body, headers = multipart(csv_text.encode())
    d = camp.post("/contacts/import", body=body, headers=headers).json()["data"]
    assert d["mapping"]["platform"] == "generic" and d["imported"] == 2
    assert d["errors"] == [{"line": 3, "error": "Unknown status 'maybe'"}]
    assert _contact(camp, "a@example.com")["status"] == "unsubscribed"
    assert _contact(camp, "c@example.com")["status"] == "active"


def test_job_import_shows_mapping(camp, campaigns_app):
    job = camp.post("/contacts/imports", json={}).json()["data"]
    bucket = campaigns_app.envs["campaigns"].refs["ImportUploadsBucket"]
    boto3.client("s3").put_object(Bucket=bucket, Key=job["upload"]["fields"]["key"],
                                  Body=(FIX / "cleaned_members_export_1a2b3c.csv").read_bytes())
    ev = json.dumps({"Records": [{"eventName": "ObjectCreated:Post", "s3": {"bucket": {"name": bucket},
                                                                          "object": {"key": job["upload"]["fields"]["key"]}}}]})
    campaigns_app.campaigns.invoke_function("ImportWorkerFunction", _sqs_event(ev))
    st = camp.get(f"/contacts/imports/{job['job_id']}").json()["data"]
    assert st["status"] == "completed" and st["imported"] == 1
    assert st["mapping"]["platform"] == "mailchimp" and st["mapping"]["file_status"] == "unsubscribed"
    assert _contact(camp, "dee@example.com")["status"] == "unsubscribed"


def test_mapping_of_a_huge_header_is_bounded(camp):
    header = "email," + ",".join(f"c{i}-" + "x" * 300 for i in range(400))
    body, headers = multipart((header + "\r\na@example.com\r\n").encode(), dry_run="true")
    d = camp.post("/contacts/import", body=body, headers=headers).json()["data"]
    m = d["mapping"]
    assert m["truncated"] is True and len(m["columns"]) == 120
    assert max(len(c["column"]) for c in m["columns"]) == 100
