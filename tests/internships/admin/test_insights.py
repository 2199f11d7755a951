"""Settings, analytics (counters + shared 60 s cache), conversion, engagement, export."""
from __future__ import annotations

import csv
import io
import os
import time

import pytest

from lambdakit import clock


def test_settings_exactly_six_keys(api, sa, intern_users):
    h = sa.headers
    r = api.get("/api/admin/settings", headers=h)
    assert r.status == 200 and set(r.json()["settings"]) == {"siteName", "siteEmail", "sitePhone", "siteAddress",
                                                               "maintenanceMode", "maxEnrollmentsPerStudent"}
    r = api.post("/api/admin/settings", headers=h, json={"siteName": "Acme Interns", "maintenanceMode": True,
                                                         "maxEnrollmentsPerStudent": 2})
    assert r.status == 200 and r.json()["settings"]["siteName"] == "Acme Interns"
    assert api.get("/api/admin/settings", headers=h).json()["settings"]["maxEnrollmentsPerStudent"] == 2
    r = api.post("/api/admin/settings", headers=h, json={"siteName": "x", "theme": "dark"})
    assert r.status == 400 and "theme" in r.json()["error"]
    assert api.get("/api/admin/settings", headers=h).json()["settings"]["siteName"] == "Acme Interns"
    assert api.post("/api/admin/settings", headers=h, json={"maintenanceMode": "yes"}).status == 400
    assert api.post("/api/admin/settings", headers=h, json={"maxEnrollmentsPerStudent": 0}).status == 400
    assert api.post("/api/admin/settings", headers=h, json={"siteEmail": "not-an-email"}).status == 400
    assert api.post("/api/admin/settings", headers=h, json={}).status == 400
    assert api.post("/api/admin/settings", headers=h, body="[1]").status == 400
    pa = intern_users.staff("project_admin")
    assert api.get("/api/admin/settings", headers=pa.headers).status == 403
    logs = api.get("/api/admin/activity-logs", headers=h, query={"action_type": "settings.update"}).json()
    assert logs["total"] == 1 and logs["logs"][0]["after"]["siteName"] == "Acme Interns"


def test_analytics_cached_60s_with_age_header(api, sa, seed, intern_users):
    h = sa.headers
    r = api.get("/api/admin/analytics", headers=h)
    assert r.status == 200 and r.headers["x-cache"] == "MISS" and r.headers["x-cache-age"] == "0"
    users_before = r.json()["data"]["users"]["total"]
    intern_users.student()
    try:
        clock.set_offset(30)
        r = api.get("/api/admin/analytics", headers=h, query={"type": "platform"})
        assert r.headers["x-cache"] == "HIT" and 29 <= int(r.headers["x-cache-age"]) <= 31
        assert r.json()["data"]["users"]["total"] == users_before  # still the cached figure
        clock.set_offset(61)
        r = api.get("/api/admin/analytics", headers=h)
        assert r.headers["x-cache"] == "MISS" and r.json()["data"]["users"]["total"] == users_before + 1
    finally:
        clock.set_offset(0)
    dom = seed.domain("AI")
    r = api.get("/api/admin/analytics", headers=h, query={"type": "domains"})
    assert r.status == 200 and r.json()["data"]["domains"][0]["domainId"] == dom["id"]
    assert api.get("/api/admin/analytics", headers=h, query={"type": "weird"}).status == 400


def test_engagement_tiles_and_conversion_funnel(api, sa, seed, intern_users):
    from internships.settings import settings
    from lambdakit.ddb import Table

    dom = seed.domain()
    s1, s2 = intern_users.student(), intern_users.student()
    seed.enrollment(s1, dom, status="active")
    seed.enrollment(s2, dom, status="completed", activated_at="2025-01-01T00:00:00.000Z",
                    completed_at="2025-01-31T00:00:00.000Z")
    seed.t.update("COUNTERS", "payments", add={"count": 1, "amount": 2500})
    t = Table(settings().table_name)
    t.update("COUNTER#VISITS", "TOTAL", add={"visitors": 10})
    r = api.get("/api/admin/analytics/engagement", headers=sa.headers)
    tiles = {x["key"]: x["value"] for x in r.json()["tiles"]}
    assert len(tiles) == 6
    assert tiles["totalStudents"] == 2 and tiles["activeEnrollments"] == 1 and tiles["revenue"] == 2500
    assert tiles["completionRate"] == 0.5 and tiles["averageCompletionTime"] == 30.0
    r = api.get("/api/admin/analytics/conversion", headers=sa.headers).json()
    assert (r["visitors"], r["signups"], r["enrollments"], r["completions"]) == (10, 2, 2, 1)
    assert [f["stage"] for f in r["funnel"]] == ["visitors", "signups", "enrollments", "completions"]
    assert r["funnel"][1]["rateFromPrevious"] == 0.2


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))


def test_export_direct_is_formula_safe(api, sa, seed, intern_users):
    intern_users.student(name="=cmd|' /C calc'!A0", city="+SUM(A1)")
    r = api.post("/api/admin/export", headers=sa.headers, json={"entity": "users", "filters": {"role": "student"}})
    assert r.status == 200 and r.headers["content-type"].startswith("text/csv")
    rows = _rows(r.text)
    assert rows[0][:3] == ["id", "name", "email"] and len(rows) == 2
    assert rows[1][1] == "'=cmd|' /C calc'!A0" and rows[1][rows[0].index("city")] == "'+SUM(A1)"
    assert "password_hash" not in rows[0]
    assert api.post("/api/admin/export", headers=sa.headers, json={"entity": "payments"}).status == 400
    assert api.post("/api/admin/export", headers=sa.headers,
                    json={"entity": "users", "filters": {"drop": "x"}}).status == 400
    dom = seed.domain("=Evil")
    r = api.post("/api/admin/export", headers=sa.headers, json={"entity": "domains"})
    assert _rows(r.text)[1][1] == "'=Evil"
    rev = intern_users.staff("reviewer")
    assert api.post("/api/admin/export", headers=rev.headers, json={"entity": "users"}).status == 403
    assert dom


def _bulk_enrollments(seed, n: int, user, dom) -> None:
    from tests.internships.admin.conftest import Seed

    items = []
    for i in range(n):
        e = {"id": f"bulk{i:06d}", "user_id": user.id, "student_name": "=HYPERLINK(\"http://x\")" if i % 1000 == 0 or i == 77
             else f"Student {i}", "student_email": f"s{i}@example.com", "domain_id": dom["id"],
             "domain_name": dom["name"], "duration": 1, "price": 1000, "amount": 1000, "discount": 0,
             "status": "active", "payment_status": "paid", "created_at": f"2025-02-01T00:00:00.{i % 1000:03d}Z",
             "updated_at": "2025-02-01T00:00:00.000Z"}
        e["created_at"] = f"2025-02-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d}Z"
        items.append(Seed.enrollment_item(e))
    seed.t.batch_write(items)
    seed.counter("enrollments", n)


def test_large_export_streams_to_s3(api, sa, seed, intern_users, monkeypatch):
    from internships.settings import settings
    from lambdakit import aws
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("INTERNSHIPS_EXPORT_DIRECT_MAX_ROWS", "40")
    reset_settings()
    st = intern_users.student()
    dom = seed.domain()
    _bulk_enrollments(seed, 120, st, dom)
    r = api.post("/api/admin/export", headers=sa.headers, json={"entity": "enrollments", "filters": {}})
    assert r.status == 200, r.text
    body = r.json()
    assert body["mode"] == "s3" and body["rows"] == 120 and body["url"].startswith("https://")
    key = body["url"].split(".amazonaws.com/", 1)[1].split("?", 1)[0]
    data = aws.client("s3").get_object(Bucket=settings().files_bucket, Key=key)["Body"].read().decode("utf-8")
    rows = _rows(data)
    assert len(rows) == 121
    names = [r[rows[0].index("student_name")] for r in rows[1:]]
    assert sum(1 for n in names if n.startswith("'=HYPERLINK")) == 2 and not any(n.startswith("=") for n in names)
    # forcing direct delivery of a small export still downloads it
    r = api.post("/api/admin/export", headers=sa.headers, json={"entity": "enrollments", "delivery": "direct"})
    assert r.headers["content-type"].startswith("text/csv") and len(_rows(r.text)) == 121


@pytest.mark.skipif(not os.environ.get("ADMIN_SLOW_TESTS"), reason="set ADMIN_SLOW_TESTS=1 (seeds 50,000 rows)")
def test_export_of_50000_enrollments_completes(api, sa, seed, intern_users):
    from internships.settings import settings
    from lambdakit import aws

    st = intern_users.student()
    dom = seed.domain()
    _bulk_enrollments(seed, 50_000, st, dom)
    t0 = time.monotonic()
    r = api.post("/api/admin/export", headers=sa.headers, json={"entity": "enrollments"})
    elapsed = time.monotonic() - t0
    body = r.json()
    assert r.status == 200 and body["rows"] == 50_000 and body["mode"] == "s3"
    key = body["url"].split(".amazonaws.com/", 1)[1].split("?", 1)[0]
    data = aws.client("s3").get_object(Bucket=settings().files_bucket, Key=key)["Body"].read().decode("utf-8")
    rows = _rows(data)
    assert len(rows) == 50_001
    col = rows[0].index("student_name")
    assert sum(1 for x in rows[1:] if x[col].startswith("'=")) == 51 and not any(x[col].startswith("=") for x in rows)
    print(f"50k export took {elapsed:.1f}s")
