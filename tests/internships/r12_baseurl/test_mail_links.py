"""Issue 33 item 1 in internships: mail never leaves with a link it cannot resolve.

Deployed without PublicBaseUrl/FrontendUrl, the mail worker holds every email (retried, not sent,
not failed) and ``GET /api/health`` says why; once ``make base-url`` has written the API URL into
the SSM parameter, the held mail goes out with absolute links, including a set-password link that
a request built as a path while no base was known."""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
API_URL = "https://xyz789.execute-api.us-east-1.amazonaws.com"


@pytest.fixture
def no_base_url(internships_app, monkeypatch):
    from lambdakit import clock, parameters
    from lambdakit.settings import reset_settings

    assert os.environ["INTERNSHIPS_PUBLIC_BASE_URL_PARAMETER"] == "/local-internships/public-base-url"
    monkeypatch.setenv("INTERNSHIPS_PUBLIC_BASE_URL", "")
    monkeypatch.setenv("INTERNSHIPS_FRONTEND_URL", "")
    reset_settings()
    parameters.forget()
    yield os.environ["INTERNSHIPS_PUBLIC_BASE_URL_PARAMETER"]
    monkeypatch.undo()
    reset_settings()
    parameters.forget()
    clock.set_offset(0)


def test_mail_is_held_until_the_base_url_is_set(no_base_url, internships_app):
    from internships.mail import outbox, repository, service
    from lambdakit import clock, parameters

    h = internships_app.internships.get("/api/health").json()
    assert h["status"] == "degraded" and h["issues"][0]["code"] == "BASE_URL_NOT_SET"
    assert no_base_url in h["issues"][0]["message"]

    welcome = outbox.enqueue("welcome", "ann@example.com", {"name": "Ann"})
    # what admin_people.passwords builds while no base is configured: a site-relative path
    reset = outbox.enqueue("password_reset", "bob@example.com", {"name": "Bob", "expiresMinutes": 30,
                                                                  "resetUrl": "/reset-password?token=t0k"})
    for eid in (welcome, reset):
        assert service.process_email(eid) == "retry"
        e = repository.get_email(eid)
        assert e["status"] == "pending" and e["attempts"] == 0  # held: no attempt spent
        assert e["last_error"].startswith("BaseUrlNotSet: ") and "make base-url" in e["last_error"]
    assert repository.sandbox_messages() == []

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import base_url
    finally:
        sys.path.remove(str(ROOT / "tools"))
    import boto3

    base_url.apply(boto3.client("ssm", region_name="us-east-1"),
                   base_url.plan({"InternshipsApiUrl": API_URL, "InternshipsBaseUrlParameter": no_base_url}))
    parameters.forget()
    assert internships_app.internships.get("/api/health").json()["status"] == "healthy"
    clock.set_offset(3600 * 2)  # past the hold's backoff
    for eid in (welcome, reset):
        assert service.process_email(eid) == "sent"
    msgs = {m["to"]: m for m in repository.sandbox_messages()}
    assert f'{API_URL}/api/email/track?id={welcome}' in msgs["ann@example.com"]["html"]
    assert f'href="{API_URL}/reset-password?token=t0k"' in msgs["bob@example.com"]["html"]
    for m in msgs.values():  # every link in what went out is absolute
        assert all(u.startswith(("https://", "mailto:")) for u in re.findall(r'(?:href|src)="([^"]*)"', m["html"]))


def test_local_stage_is_healthy(internships_app):
    h = internships_app.internships.get("/api/health").json()
    assert h["status"] == "healthy" and h["issues"] == []
