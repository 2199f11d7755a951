"""Issue #18 item 8: the in-request CSV import's limit is one Lambda can actually receive."""
from __future__ import annotations

from tests.campaigns.audience.test_audience_import_export import multipart

LAMBDA_SYNC_EVENT_BYTES = 6 * 1024 * 1024


def test_inline_import_limit_fits_a_lambda_event_and_points_at_the_job(camp):
    from campaigns.settings import settings

    limit = settings().import_max_bytes
    # API Gateway hands a multipart body to Lambda base64-encoded: the limit must leave room in
    # the 6 MB synchronous event for that and the rest of the event.
    assert (limit + 2) // 3 * 4 + 64 * 1024 <= LAMBDA_SYNC_EVENT_BYTES
    rows = "".join(f"u{i:07d}@example.com,Name{i}\r\n" for i in range(200_000))
    big = ("email,first_name\r\n" + rows).encode()[: limit + 1000]
    body, headers = multipart(big)
    assert 4_600_000 > len(body) > limit
    r = camp.post("/contacts/import", body=body, headers=headers)
    assert r.status == 413, r.text[:300]
    err = r.json()["error"]
    assert r.json()["success"] is False and err["code"] == "PAYLOAD_TOO_LARGE"
    assert "/contacts/imports" in err["message"]
    assert err["details"]["job_route"] == "POST /contacts/imports" and err["details"]["max_bytes"] == limit
    # a body just under the limit still runs in the request (blank lines: one row, little work)
    ok_body, ok_headers = multipart(b"email\r\na@example.com\r\n" + b"\r\n" * ((limit - 1000) // 2))
    assert limit - 20_000 < len(ok_body) <= limit
    r = camp.post("/contacts/import", body=ok_body, headers=ok_headers)
    assert r.status == 200 and r.json()["data"]["imported"] == 1, r.text[:300]


def test_too_many_rows_points_at_the_job(camp, monkeypatch):
    from lambdakit import settings as ls

    monkeypatch.setenv("CAMPAIGNS_IMPORT_MAX_SYNC_ROWS", "3")
    ls.reset_settings()
    body, headers = multipart(b"email\r\n" + b"".join(f"r{i}@example.com\r\n".encode() for i in range(4)))
    r = camp.post("/contacts/import", body=body, headers=headers)
    assert r.status == 413 and r.json()["error"]["details"] == {"max_rows": 3, "job_route": "POST /contacts/imports"}
