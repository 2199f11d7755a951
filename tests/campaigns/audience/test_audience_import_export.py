"""CSV import (in-request and asynchronous job) and export."""
from __future__ import annotations

import csv
import io
import json
import os

import boto3

BOUNDARY = "----audience-test-boundary"


def multipart(file_bytes: bytes, **fields: str) -> tuple[bytes, dict]:
    parts = []
    for k, v in fields.items():
        parts.append(f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode())
    parts.append(f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\n'
                 f'Content-Type: text/csv\r\n\r\n'.encode() + file_bytes + b"\r\n")
    parts.append(f"--{BOUNDARY}--\r\n".encode())
    return b"".join(parts), {"content-type": f"multipart/form-data; boundary={BOUNDARY}"}


def test_import_rules(camp):
    lid = camp.post("/lists", json={"name": "imp"}).json()["data"]["id"]
    camp.post("/contacts", json={"email": "exists@example.com", "first_name": "Old", "tags": ["a"]})
    csv_text = ("Email,First_Name,last_name,tags,company,plan\r\n"
                "new1@example.com,Ann,One,vip;beta,Acme,\r\n"
                "not-an-email,Bad,Row,,,\r\n"
                "exists@example.com,New,,b,,gold\r\n"
                "NEW1@example.com,Dup,,,,\r\n"
                "\r\n"
                "new2@example.com,,,,,pro\r\n")
    body, headers = multipart(csv_text.encode(), list_id=lid, tags="imported, q3", update_existing="false")
    r = camp.post("/contacts/import", body=body, headers=headers)
    assert r.status == 200, r.text
    d = r.json()["data"]
    assert (d["imported"], d["updated"], d["skipped"]) == (2, 0, 2)
    assert d["errors"] == [{"line": 3, "error": d["errors"][0]["error"]}] and "email" in d["errors"][0]["error"].lower()
    got = camp.get("/contacts", query={"list_id": lid}).json()["data"]
    assert got["pagination"]["total"] == 2
    ann = next(c for c in got["contacts"] if c["email"] == "new1@example.com")
    assert ann["tags"] == ["vip", "beta", "imported", "q3"] and ann["custom_fields"] == {"company": "Acme"}
    assert ann["first_name"] == "Ann" and ann["lists"] == [lid]
    assert camp.get("/contacts", query={"tag": "q3"}).json()["data"]["pagination"]["total"] == 2
    assert camp.get(f"/lists/{lid}").json()["data"]["contact_count"] == 2

    body, headers = multipart(csv_text.encode(), list_id=lid, update_existing="true")
    d = camp.post("/contacts/import", body=body, headers=headers).json()["data"]
    assert d["imported"] == 0 and d["updated"] == 1  # exists@ merged; new1/new2 unchanged → skipped
    ex = camp.get("/contacts", query={"search": "exists"}).json()["data"]["contacts"][0]
    assert ex["first_name"] == "New" and ex["tags"] == ["a", "b"] and ex["custom_fields"] == {"plan": "gold"}
    assert ex["lists"] == [lid]
    assert camp.get("/contacts").json()["data"]["pagination"]["total"] == 3
    assert camp.get(f"/lists/{lid}").json()["data"]["contact_count"] == 3


def test_import_errors(camp):
    body, headers = multipart(b"name\r\nx\r\n")
    r = camp.post("/contacts/import", body=body, headers=headers)
    assert r.status == 422 and "file" in r.json()["error"]["details"]
    body, headers = multipart(b"email\r\na@example.com\r\n", list_id="nope")
    r = camp.post("/contacts/import", body=body, headers=headers)
    assert r.status == 422 and "list_id" in r.json()["error"]["details"]
    body, headers = multipart(b"email\r\na@example.com\r\n", update_existing="maybe")
    assert camp.post("/contacts/import", body=body, headers=headers).status == 422
    r = camp.post("/contacts/import", json={"file": "x"})
    assert r.status == 422
    body, headers = multipart(b"\xff\xfe\x00bad")
    r = camp.post("/contacts/import", body=body, headers=headers)
    assert r.status == 422 and "file" in r.json()["error"]["details"]
    big = b"email\r\n" + b"x" * 4_600_000  # over the in-request limit (4,500,000), under Lambda's 6 MB event
    body, headers = multipart(big)
    r = camp.post("/contacts/import", body=body, headers=headers)
    assert r.status == 413 and "/contacts/imports" in r.json()["error"]["message"]


# The size: 10,000 rows in one request. Plain rows are one item each (the contact, 25
# per BatchWriteItem); every 10th row also carries a tag (one more item), so the tag filter and
# its counter are exercised too. AUDIENCE_IMPORT_ROWS overrides the size.
ROWS = int(os.environ.get("AUDIENCE_IMPORT_ROWS", "10000"))


def test_import_many_rows_in_one_request(camp):
    rows = "\r\n".join(f"user{i}@example.com,First{i},Last{i},{'t1' if i % 10 == 1 else ''}" for i in range(ROWS))
    body, headers = multipart(("email,first_name,last_name,tags\r\n" + rows).encode())
    r = camp.post("/contacts/import", body=body, headers=headers)
    assert r.status == 200, r.text[:500]
    d = r.json()["data"]
    assert d["imported"] == ROWS and d["errors"] == []
    p = camp.get("/contacts", query={"limit": 5}).json()["data"]["pagination"]
    assert p["total"] == ROWS and p["pages"] == ROWS // 5
    assert camp.get("/contacts", query={"tag": "t1"}).json()["data"]["pagination"]["total"] == len(range(1, ROWS, 10))
    hit = camp.get("/contacts", query={"search": f"user{ROWS - 1}@"}).json()["data"]["contacts"]
    assert [c["first_name"] for c in hit] == [f"First{ROWS - 1}"]


def _sqs_event(*bodies: str) -> dict:
    return {"Records": [{"messageId": str(i), "receiptHandle": "r", "body": b, "attributes": {},
                         "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
                         "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:q", "awsRegion": "us-east-1"}
                        for i, b in enumerate(bodies)]}


def test_async_import_job_with_progress(camp, campaigns_app, monkeypatch):
    from lambdakit import settings as ls

    monkeypatch.setenv("CAMPAIGNS_IMPORT_ROWS_PER_INVOCATION", "500")
    ls.reset_settings()
    lid = camp.post("/lists", json={"name": "async"}).json()["data"]["id"]
    r = camp.post("/contacts/imports", json={"list_id": lid, "tags": ["bulk"]})
    assert r.status == 202, r.text
    job = r.json()["data"]
    assert job["status"] == "awaiting_upload" and job["upload"]["method"] == "POST"
    key = job["upload"]["fields"]["key"]
    bucket = campaigns_app.envs["campaigns"].refs["ImportUploadsBucket"]
    rows = "\n".join(f"a{i}@example.com,N{i}" for i in range(1_200))
    boto3.client("s3").put_object(Bucket=bucket, Key=key, Body=("email,first_name\n" + rows + "\nbad,x\n").encode())
    s3_event = json.dumps({"Records": [{"eventName": "ObjectCreated:Post", "s3": {"bucket": {"name": bucket},
                                                                                   "object": {"key": key}}}]})
    w = campaigns_app.campaigns.invoke_function("ImportWorkerFunction", _sqs_event(s3_event))
    assert w == {"batchItemFailures": []}
    st = camp.get(f"/contacts/imports/{job['job_id']}").json()["data"]
    assert st["status"] == "running" and st["processed"] == 500 and st["total"] == 1201 and 0 < st["progress"] < 100
    q = campaigns_app.envs["campaigns"].refs["ImportQueue"]
    sqs = boto3.client("sqs")
    for _ in range(5):
        msgs = sqs.receive_message(QueueUrl=q, MaxNumberOfMessages=1).get("Messages", [])
        if not msgs:
            break
        sqs.delete_message(QueueUrl=q, ReceiptHandle=msgs[0]["ReceiptHandle"])
        campaigns_app.campaigns.invoke_function("ImportWorkerFunction", _sqs_event(msgs[0]["Body"]))
    st = camp.get(f"/contacts/imports/{job['job_id']}").json()["data"]
    assert st["status"] == "completed" and st["processed"] == 1201 and st["imported"] == 1200
    assert st["errors"] and st["errors"][0]["line"] == 1202
    assert camp.get(f"/lists/{lid}").json()["data"]["contact_count"] == 1200
    assert camp.get("/contacts", query={"tag": "bulk"}).json()["data"]["pagination"]["total"] == 1200
    # a duplicate S3 event does nothing
    campaigns_app.campaigns.invoke_function("ImportWorkerFunction", _sqs_event(s3_event))
    assert camp.get("/contacts").json()["data"]["pagination"]["total"] == 1200
    assert camp.get("/contacts/imports/unknown").status == 404


def test_export_csv_json_neutralised_and_s3(camp, monkeypatch):
    lid = camp.post("/lists", json={"name": "x"}).json()["data"]["id"]
    camp.post("/contacts", json={"email": "evil@example.com", "first_name": "=HYPERLINK(\"x\")", "last_name": "-1",
                                 "tags": ["@t", "ok"], "custom_fields": {"note": "+SUM(A1)"}, "lists": [lid]})
    camp.post("/contacts", json={"email": "plain@example.com", "first_name": "Plain"})
    r = camp.get("/contacts/export")
    assert r.status == 200 and r.headers["content-type"].startswith("text/csv")
    assert "attachment" in r.headers["content-disposition"]
    # contacts are personal data: no cache keeps the file, no browser sniffs it (lambdakit.http.file_response)
    assert r.headers["cache-control"] == "private, no-store" and r.headers["x-content-type-options"] == "nosniff"
    rows = list(csv.DictReader(io.StringIO(r.text)))
    evil = next(x for x in rows if x["email"] == "evil@example.com")
    assert evil["first_name"] == "'=HYPERLINK(\"x\")" and evil["last_name"] == "'-1"
    assert evil["tags"] == "'@t;ok" and evil["note"] == "'+SUM(A1)" and len(rows) == 2
    r = camp.get("/contacts/export", query={"format": "json", "list_id": lid, "fields": "email,tags"})
    assert r.status == 200 and r.json() == [{"email": "evil@example.com", "tags": ["@t", "ok"]}]
    assert camp.get("/contacts/export", query={"format": "xml"}).status == 422
    assert camp.get("/contacts/export", query={"fields": "email,password"}).status == 422

    from lambdakit import settings as ls

    monkeypatch.setenv("CAMPAIGNS_EXPORT_INLINE_MAX_BYTES", "50")
    ls.reset_settings()
    r = camp.get("/contacts/export")
    assert r.status == 200
    d = r.json()["data"]
    assert d["url"].startswith("http") and d["count"] == 2 and d["bytes"] > 50
