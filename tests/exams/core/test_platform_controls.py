"""Settings & maintenance mode, rate limits, headers, create-user atomicity, audit listing."""
from __future__ import annotations

import os

import boto3
import pytest

from lambdakit import settings as lk_settings


def test_maintenance_mode_blocks_everyone_but_super_admin(exams_app, exam_users):
    sa = exam_users.super_admin()
    c = exam_users.client("Org", "free")
    ca = exam_users.client_admin(c["id"])
    api = exams_app.exams
    r = api.put("/api/settings", json={"maintenance_mode": True, "announcement_banner": "Back at 10:00"},
                headers=sa.headers)
    assert r.status == 200 and r.json()["data"]["maintenance_mode"] is True
    r = api.get("/api/profiles", headers=ca.headers)
    assert r.status == 503 and r.json() == {
        "error": "SERVICE_UNAVAILABLE", "message": "Service temporarily unavailable", "status": 503,
        "details": {"reason": "maintenance_mode", "message": "Back at 10:00"}}
    assert api.get("/api/profiles").status == 503
    assert api.get("/api/profiles", headers=sa.headers).status == 200
    assert api.get("/health").status == 200
    r = api.get("/")
    assert r.status == 200 and r.json()["data"]["announcement_banner"] == "Back at 10:00"
    assert api.put("/api/settings", json={"maintenance_mode": False}, headers=sa.headers).status == 200
    assert api.get("/api/profiles", headers=ca.headers).status == 200
    r = api.get("/api/settings", headers=sa.headers).json()["data"]
    assert r["announcement_banner"] == "Back at 10:00" and r["registration_enabled"] is True
    assert api.put("/api/settings", json={"maintenance_mode": "sometimes"}, headers=sa.headers).status == 400


def test_headers_on_every_response(exams_app, exam_users):
    r = exams_app.exams.get("/health", headers={"X-Request-Id": "abc12345-req"})
    # the API Gateway request id, not the client's (issue 18 item 3: it is every log line's correlation id)
    assert r.headers["x-request-id"] and r.headers["x-request-id"] != "abc12345-req"
    assert int(r.headers["x-ratelimit-remaining"]) == 999 and int(r.headers["x-ratelimit-reset"]) > 0
    r = exams_app.exams.get("/api/settings")  # an error response too
    assert r.status == 401 and r.headers["x-request-id"] and "x-ratelimit-remaining" in r.headers


@pytest.fixture
def tight_limits(monkeypatch):
    monkeypatch.setenv("EXAMS_STRICT_RATE_LIMIT", "3/minute")
    monkeypatch.setenv("EXAMS_GLOBAL_RATE_LIMIT", "6/15minutes")
    lk_settings.reset_settings()
    yield
    lk_settings.reset_settings()


def test_strict_and_global_rate_limits(exams_app, exam_users, tight_limits, fresh_rate_window):
    sa = exam_users.super_admin()
    api = exams_app.exams
    statuses = []
    for _i in range(4):
        r = api.post("/api/create-user", json={"email": "bad"}, headers=sa.headers)
        statuses.append(r.status)
    assert statuses[:3] == [400, 400, 400] and statuses[3] == 429
    body = r.json()
    assert body["error"] == "RATE_LIMITED" and body["details"]["limit"] == 3 and body["details"]["window"] == 60
    assert int(r.headers["retry-after"]) == body["details"]["retry_after"] > 0
    # the global limit (per user) still counts; anonymous callers are limited per IP separately
    for _ in range(2):
        assert api.get("/api/settings", headers=sa.headers).status == 200
    r = api.get("/api/settings", headers=sa.headers)
    assert r.status == 429 and r.json()["details"]["window"] == 900
    assert api.get("/health", source_ip="192.0.2.1").status == 200


def test_create_user_duplicate_and_undo(exams_app, exam_users, monkeypatch):
    sa = exam_users.super_admin()
    c = exam_users.client("Org", "free")
    api = exams_app.exams
    body = {"email": "dup@example.com", "password": "Passw0rd!x", "name": "Dup", "role": "student",
            "client_id": c["id"]}
    r = api.post("/api/create-user", json=body, headers=sa.headers)
    assert r.status == 201 and set(r.json()["data"]) == {"id", "email", "name", "role", "client_id"}
    r = api.post("/api/create-user", json={**body, "email": "DUP@example.com"}, headers=sa.headers)
    assert (r.status, r.json()["error"]) == (409, "ALREADY_EXISTS")

    from exams.users import repository as repo
    from lambdakit.errors import ConditionFailed

    def boom(*a, **k):
        raise ConditionFailed("injected")

    monkeypatch.setattr(repo, "put_profile", boom)
    r = api.post("/api/create-user", json={**body, "email": "half@example.com"}, headers=sa.headers)
    assert r.status == 500 and "Traceback" not in r.text
    idp = boto3.client("cognito-idp", region_name="us-east-1")
    with pytest.raises(idp.exceptions.UserNotFoundException):
        idp.admin_get_user(UserPoolId=os.environ["EXAMS_USER_POOL_ID"], Username="half@example.com")
    monkeypatch.undo()
    r = api.post("/api/create-user", json={**body, "email": "half@example.com"}, headers=sa.headers)
    assert r.status == 201
    r = api.post("/api/create-user", json={**body, "email": "x@example.com", "client_id": "missing"},
                 headers=sa.headers)
    assert (r.status, r.json()["error"]) == (404, "CLIENT_NOT_FOUND")
    r = api.post("/api/create-user", json={**body, "email": "weak@example.com", "password": "short"},
                 headers=sa.headers)
    assert r.status == 400 and r.json()["details"][0]["field"] == "password"


def test_audit_log_filters_and_pagination(exams_app, exam_users):
    sa = exam_users.super_admin()
    api = exams_app.exams
    c = exam_users.client("Org", "free")
    for i in range(3):
        api.put(f"/api/clients/{c['id']}", json={"address": f"Street {i}"}, headers=sa.headers)
    r = api.get("/api/superadmin/audit-logs", headers=sa.headers)
    body = r.json()
    assert body["pagination"]["limit"] == 50 and body["pagination"]["total"] == len(body["data"]) >= 5
    created = [x["created_at"] for x in body["data"]]
    assert created == sorted(created, reverse=True)
    r = api.get("/api/superadmin/audit-logs", headers=sa.headers, query={"action": "client.update", "limit": 2})
    b = r.json()
    assert b["pagination"] == {"page": 1, "limit": 2, "total": 3, "pages": 2, "has_more": True}
    import json as _j
    meta = _j.loads(b["data"][0]["metadata"])
    assert meta["before"] == {"address": "Street 1"} and meta["after"] == {"address": "Street 2"}
    r2 = api.get("/api/superadmin/audit-logs", headers=sa.headers, query={"action": "client.update", "limit": 2,
                                                                           "page": 2})
    assert len(r2.json()["data"]) == 1 and r2.json()["pagination"]["has_more"] is False
    r = api.get("/api/superadmin/audit-logs", headers=sa.headers,
                query={"entity_type": "client", "user_id": sa.id, "start_date": "2000-01-01"})
    assert {x["action"] for x in r.json()["data"]} == {"client.create", "client.update"}
    assert r.json()["pagination"]["total"] is None
    r = api.get("/api/superadmin/audit-logs", headers=sa.headers, query={"start_date": "yesterday"})
    assert r.status == 400 and r.json()["details"][0]["field"] == "start_date"
