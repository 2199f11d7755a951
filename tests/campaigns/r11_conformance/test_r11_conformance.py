"""Round 11: a black-box conformance sweep against the spec (email-campaign-service.md).

Each test is one place where the service answered differently from what the spec states:
- "List responses put the array in data under a plural key ... and add data.pagination"
  (GET /webhooks had no pagination);
- the error shape lists ``error.details`` (an object) for every error, not only validation;
- ``POST /campaigns/{id}/send``: "data: campaign_id, status, scheduled_for, estimated_recipients"
  also for a test send;
- "details keyed by the field name": cross-field rules (a subject or body required, test_emails
  required with send_test, list_id/test_emails of an audience, schedule.date) named ``body``
  or the enclosing object instead of the field.
"""
from __future__ import annotations

import pytest

HOOK = {"url": "http://127.0.0.1:9/hook", "events": ["campaign.created"]}


def test_webhook_list_has_pagination(camp):
    assert camp.get("/webhooks").json()["data"] == {
        "webhooks": [], "pagination": {"page": 1, "limit": 20, "total": 0, "pages": 0}}
    ids = [camp.post("/webhooks", json={"name": f"h{i}", **HOOK}).json()["data"]["id"] for i in range(3)]
    data = camp.get("/webhooks").json()["data"]
    assert [w["id"] for w in data["webhooks"]] == ids  # oldest first, as before
    assert data["pagination"] == {"page": 1, "limit": 20, "total": 3, "pages": 1}
    data = camp.get("/webhooks", query={"page": "2", "limit": "2"}).json()["data"]
    assert [w["id"] for w in data["webhooks"]] == ids[2:]
    assert data["pagination"] == {"page": 2, "limit": 2, "total": 3, "pages": 2}
    r = camp.get("/webhooks", query={"limit": "101"})
    assert r.status == 422 and r.json()["error"]["details"] == {"limit": "Must be between 1 and 100"}


@pytest.mark.parametrize("path, headers, status, code", [
    ("/campaigns", {"Authorization": ""}, 401, "AUTH_REQUIRED"),
    ("/campaigns", {"Authorization": "Bearer ck_nope"}, 401, "INVALID_TOKEN"),
    ("/campaigns/nope", None, 404, "NOT_FOUND"),
    ("/no-such-route", None, 404, "NOT_FOUND"),
])
def test_every_error_carries_details_object(camp, path, headers, status, code):
    r = camp.get(path, headers=headers) if headers else camp.get(path)
    body = r.json()
    assert r.status == status and body["success"] is False and body["error"]["code"] == code
    assert body["error"]["details"] == {}
    assert set(body) == {"success", "error", "timestamp"}


def test_permission_denied_carries_details_object(camp, make_key):
    analyst = make_key(role="analyst")
    r = camp.post("/campaigns", json={"name": "x"}, headers={"Authorization": f"Bearer {analyst}"})
    assert r.status == 403 and r.json()["error"]["code"] == "PERMISSION_DENIED"
    assert r.json()["error"]["details"] == {}


def test_test_send_answers_the_send_fields_too(new_campaign, camp):
    cid = new_campaign()
    r = camp.post(f"/campaigns/{cid}/send", json={"send_test": True, "confirm": True,
                                                  "test_emails": ["qa@example.com", "QA2@example.com", "qa@example.com"]})
    assert r.status == 200, r.text
    d = r.json()["data"]
    assert d["campaign_id"] == cid and d["status"] == "draft" and d["test"] is True
    assert d["estimated_recipients"] == 2 and isinstance(d["estimated_recipients"], int)
    assert d["scheduled_for"] == d["sent_at"] and d["scheduled_for"].endswith("Z")
    assert camp.get(f"/campaigns/{cid}").json()["data"]["status"] == "draft"


@pytest.mark.parametrize("path, body, field", [
    ("/email/send", {"to": "a@example.com", "html": "<p>x</p>"}, "subject"),
    ("/email/send", {"to": "a@example.com", "subject": "s"}, "html"),
    ("/email/bulk", {"recipients": [{"to": "a@example.com"}], "html": "<p>x</p>"}, "subject"),
    ("/email/send", {"to": "a@example.com", "subject": "s", "html": "x",
                     "attachments": [{"filename": "a.txt"}]}, "attachments.0.content"),
    ("/email/send", {"to": "a@example.com", "subject": "s", "html": "x",
                     "attachments": [{"content": "aGk="}]}, "attachments.0.filename"),
    ("/campaigns", {"name": "c", "audience": {"type": "list"}}, "audience.list_id"),
    ("/campaigns", {"name": "c", "audience": {"type": "test"}}, "audience.test_emails"),
    ("/campaigns", {"name": "c", "schedule": {"type": "scheduled"}}, "schedule.date"),
])
def test_cross_field_rules_are_keyed_by_the_field(camp, path, body, field):
    r = camp.post(path, json=body)
    assert r.status == 422, r.text
    err = r.json()["error"]
    assert err["code"] == "VALIDATION_ERROR" and list(err["details"]) == [field], err


def test_send_test_without_addresses_is_keyed_by_test_emails(new_campaign, camp):
    cid = new_campaign()
    r = camp.post(f"/campaigns/{cid}/send", json={"send_test": True})
    assert r.status == 422 and list(r.json()["error"]["details"]) == ["test_emails"], r.text
