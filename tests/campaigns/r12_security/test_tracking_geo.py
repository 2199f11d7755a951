"""Issue 32 item 9: country and city come from CloudFront-Viewer-* headers only when a setting says
a CloudFront distribution in front sets them; by default a client's forged headers record nothing."""
from __future__ import annotations

import re

BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
FORGED = {"user-agent": BROWSER, "cloudfront-viewer-country": "KP", "cloudfront-viewer-city": "Pyongyang"}


def _pixel_and_link(new_campaign, camp, pipe):
    cid = new_campaign(audience={"type": "test", "test_emails": ["geo@example.com"]})
    camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    pipe.send_all()
    html = camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"][0]["html"]
    strip = lambda u: re.sub(r"^https?://[^/]+", "", u)  # noqa: E731
    return (strip(re.search(r'src="([^"]+/t/o/[^"]+)"', html).group(1)),
            strip(re.search(r'href="([^"]+/t/c/[^"]+)"', html).group(1)))


def test_forged_viewer_headers_record_no_geography_by_default(new_campaign, camp, pipe, later):
    pixel, link = _pixel_and_link(new_campaign, camp, pipe)
    later()
    assert camp.get(pixel, headers=FORGED).status == 200
    assert camp.get(link, headers=FORGED).status == 302
    geo = camp.get("/analytics/geographic").json()["data"]
    assert not any(c["country"] == "KP" for c in geo["countries"]), geo
    assert not any(city.get("city") == "Pyongyang" for c in geo["countries"] for city in c.get("cities", []))


def test_viewer_headers_are_used_when_cloudfront_is_declared(new_campaign, camp, pipe, later, monkeypatch):
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("CAMPAIGNS_TRUST_CLOUDFRONT_GEO", "true")
    reset_settings()
    pixel, _ = _pixel_and_link(new_campaign, camp, pipe)
    later()
    assert camp.get(pixel, headers=FORGED).status == 200
    geo = camp.get("/analytics/geographic").json()["data"]
    assert geo["countries"][0]["country"] == "KP"
