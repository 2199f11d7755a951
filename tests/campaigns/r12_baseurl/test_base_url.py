"""Issue 33 item 1: a deployed stage never sends a link it cannot resolve.

With no public base URL configured (the template's default), every send route answers 503
``BASE_URL_NOT_SET`` in the campaigns error format and queues nothing, and ``GET /health`` says why;
``make base-url`` (tools/base_url.py) writes the stack's API URL into the SSM parameter the template
creates, and from then on mail carries absolute links on that URL — no second deploy."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
API_URL = "https://abc123.execute-api.us-east-1.amazonaws.com"


@pytest.fixture
def no_base_url(campaigns_app, monkeypatch):
    """The campaigns functions as deployed without PublicBaseUrl or CustomDomainName."""
    from lambdakit import parameters
    from lambdakit.settings import reset_settings

    assert os.environ["CAMPAIGNS_PUBLIC_BASE_URL_PARAMETER"] == "/local-campaigns/public-base-url"
    monkeypatch.setenv("CAMPAIGNS_PUBLIC_BASE_URL", "")
    reset_settings()
    parameters.forget()
    yield os.environ["CAMPAIGNS_PUBLIC_BASE_URL_PARAMETER"]
    monkeypatch.undo()
    reset_settings()
    parameters.forget()


def _make_base_url(outputs: dict) -> None:
    """What ``make base-url`` does, against the test account's SSM."""
    import boto3

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import base_url
    finally:
        sys.path.remove(str(ROOT / "tools"))
    base_url.apply(boto3.client("ssm", region_name="us-east-1"), base_url.plan(outputs))
    from lambdakit import parameters

    parameters.forget()  # the functions' one-minute cache, elapsed


def _refused(r) -> None:
    assert r.status == 503, r.text
    err = r.json()["error"]
    assert r.json()["success"] is False and err["code"] == "BASE_URL_NOT_SET"
    assert "make base-url" in err["message"]


def test_sends_are_refused_and_health_says_why_until_make_base_url(no_base_url, camp, new_campaign, pipe):
    h = camp.get("/health").json()["data"]
    assert h["status"] == "degraded" and [i["code"] for i in h["issues"]] == ["BASE_URL_NOT_SET"]
    assert no_base_url in h["issues"][0]["message"]

    cid = new_campaign()
    _refused(camp.post("/email/send", json={"to": "a@example.com", "subject": "s", "html": "<p>x</p>",
                                             "provider": {"provider": "sandbox", "from_email": "n@example.com"}}))
    _refused(camp.post("/email/bulk", json={"recipients": [{"to": "b@example.com"}], "subject": "s",
                                             "html": "<p>x</p>"}))
    _refused(camp.post(f"/campaigns/{cid}/send", json={"confirm": True}))
    _refused(camp.post(f"/campaigns/{cid}/send", json={"send_test": True, "test_emails": ["t@example.com"]}))
    pipe.tick()
    pipe.send_all()
    assert camp.get("/email/outbox").json()["data"]["messages"] == []
    assert camp.get(f"/campaigns/{cid}").json()["data"]["status"] == "draft"

    _make_base_url({"CampaignsApiUrl": API_URL, "CampaignsBaseUrlParameter": no_base_url})
    h = camp.get("/health").json()["data"]
    assert h["status"] == "healthy" and h["issues"] == []
    r = camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    assert r.status == 200, r.text
    pipe.tick()
    pipe.send_all()
    [m, *_] = camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"]
    assert m["headers"]["List-Unsubscribe"].startswith(f"<{API_URL}/unsubscribe/")
    assert f'src="{API_URL}/t/o/' in m["html"] and f'href="{API_URL}/t/c/' in m["html"]


def test_a_configured_url_that_cannot_resolve_is_refused_too(campaigns_app, camp, monkeypatch):
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("CAMPAIGNS_PUBLIC_BASE_URL", "mail.example.com")  # no scheme: links would be relative
    reset_settings()
    try:
        h = camp.get("/health").json()["data"]
        assert h["status"] == "degraded" and "not an absolute http(s) URL" in h["issues"][0]["message"]
        _refused_code = camp.post("/email/bulk", json={"recipients": [{"to": "b@example.com"}], "subject": "s",
                                                        "html": "<p>x</p>"})
        assert _refused_code.status == 503 and _refused_code.json()["error"]["code"] == "BASE_URL_NOT_SET"
    finally:
        monkeypatch.undo()
        reset_settings()


def test_local_stage_keeps_its_base_url(camp):
    h = camp.get("/health").json()["data"]
    assert h["status"] == "healthy" and h["issues"] == []


def test_make_base_url_plan_reads_root_and_service_stack_outputs():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import base_url
    finally:
        sys.path.remove(str(ROOT / "tools"))
    assert base_url.plan({"CampaignsApiUrl": API_URL + "/", "CampaignsBaseUrlParameter": "/s/p",
                          "ExamsApiUrl": "https://x"}) == [("/s/p", API_URL)]
    assert base_url.plan({"HttpApiUrl": API_URL, "PublicBaseUrlParameterName": "/c/p"}) == [("/c/p", API_URL)]
    assert base_url.plan({"CampaignsApiUrl": API_URL, "CampaignsBaseUrlParameter": "/s/p"},
                         url="https://mail.example.com") == [("/s/p", "https://mail.example.com")]
    with pytest.raises(base_url.BaseUrlError):
        base_url.plan({"CampaignsApiUrl": API_URL})  # a stack deployed before issue 33
    with pytest.raises(base_url.BaseUrlError):
        base_url.plan({"CampaignsApiUrl": "", "CampaignsBaseUrlParameter": "/s/p"})
