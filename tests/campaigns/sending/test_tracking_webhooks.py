"""Tracking (pixel, click redirect, unsubscribe), analytics counters, webhooks end to end."""
from __future__ import annotations

import hashlib
import hmac
import json
import re

IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"


def _sent_campaign(new_campaign, camp, pipe, n=2):
    cid = new_campaign(audience={"type": "test", "test_emails": [f"t{i}@example.com" for i in range(n)]})
    camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    pipe.send_all()
    box = camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"]
    return cid, {m["to"]: m for m in box}


def _path(url: str) -> str:
    return re.sub(r"^https?://[^/]+", "", url)


def test_open_click_move_stats_and_analytics(new_campaign, camp, pipe, later, monkeypatch):
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("CAMPAIGNS_TRUST_CLOUDFRONT_GEO", "true")  # a CloudFront distribution sets the headers
    reset_settings()
    cid, box = _sent_campaign(new_campaign, camp, pipe)
    later()
    html = box["t0@example.com"]["html"]
    pixel = _path(re.search(r'src="([^"]+/t/o/[^"]+)"', html).group(1))
    link = _path(re.search(r'href="([^"]+/t/c/[^"]+)"', html).group(1))
    hdr = {"user-agent": IPHONE, "cloudfront-viewer-country": "DE", "cloudfront-viewer-city": "Berlin"}
    r = camp.get(pixel, headers=hdr)
    assert r.status == 200 and r.headers["content-type"] == "image/gif" and r.body[:3] == b"GIF"
    camp.get(pixel, headers=hdr)  # a second open: total, not unique
    r = camp.get(link, headers=hdr)
    assert r.status == 302
    loc = r.headers["location"]
    assert loc.startswith("https://shop.example.com/sale?") and "utm_source=newsletter" in loc and "utm_campaign=spring" in loc
    camp.get(pixel, headers={"user-agent": "Mozilla/5.0"})  # Apple MPP proxy: machine open
    d = camp.get(f"/campaigns/{cid}").json()["data"]
    st = d["stats"]
    assert st["opened"] == 1 and st["total_opens"] == 2 and st["clicked"] == 1 and st["machine_opens"] == 1
    assert st["open_rate"] == 50.0 and st["click_rate"] == 50.0
    a = camp.get(f"/campaigns/{cid}/analytics", query={"timeframe": "last_7_days"}).json()["data"]
    assert a["totals"]["opened"] == 1 and a["top_links"][0]["clicks"] == 1 and len(a["series"]) == 7
    assert a["series"][-1]["sent"] == 2 and a["series"][-1]["opened"] == 2
    from lambdakit import clock

    today = clock.today()
    o = camp.get("/analytics/overall", query={"start_date": today, "end_date": today}).json()["data"]
    assert o["summary"]["total_emails_sent"] == 2 and o["summary"]["campaigns_sent"] == 1
    assert o["summary"]["total_opened"] == 1 and o["trends"] == [{"date": today, "sent": 2, "opened": 1, "clicked": 1}]
    assert o["top_campaigns"][0]["id"] == cid
    g = camp.get("/analytics/geographic").json()["data"]
    assert g["countries"][0]["country"] == "DE" and g["countries"][0]["cities"][0]["city"] == "Berlin"
    dv = camp.get("/analytics/devices").json()["data"]
    assert dv["device_types"][0]["name"] == "mobile" and dv["operating_systems"][0]["name"] == "iOS"
    p = camp.get("/analytics/providers").json()["data"]["providers"]
    assert p[0]["provider"] == "sandbox" and p[0]["sent"] == 2
    assert camp.get("/analytics/overall").status == 422


def test_forged_or_altered_links_are_not_followed(new_campaign, camp, pipe):
    cid, box = _sent_campaign(new_campaign, camp, pipe, n=1)
    link = _path(re.search(r'href="([^"]+/t/c/[^"]+)"', box["t0@example.com"]["html"]).group(1))
    token = link.rsplit("/", 1)[1]
    payload, _, sig = token.rpartition(".")
    import base64

    data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    data["u"] = "https://evil.example.net/"
    forged = base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=") + "." + sig
    assert camp.get(f"/t/c/{forged}").status == 404
    assert camp.get("/t/c/garbage").status == 404
    assert camp.get(link[:-3] + "abc").status == 404
    assert camp.get("/t/o/garbage").status == 200  # pixel always renders, records nothing
    assert camp.get(f"/campaigns/{cid}").json()["data"]["stats"]["opened"] == 0


def _hook(camp, receiver, events):
    r = camp.post("/webhooks", json={"name": "r", "url": receiver.url, "events": events,
                                      "secret": "s3cret-s3cret-s3cret"})
    assert r.status == 201, r.text
    return r.json()["data"]


def _verify(req, secret="s3cret-s3cret-s3cret"):
    expected = hmac.new(secret.encode(), req["body"], hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, req["headers"]["x-campaign-signature"])


def test_events_arrive_signed(new_campaign, camp, pipe, receiver, later):
    _hook(camp, receiver, ["campaign.created", "campaign.sent", "campaign.opened", "campaign.clicked",
                           "email.delivered", "email.bounced"])
    cid = new_campaign(audience={"type": "test", "test_emails": ["ok@example.com",
                                                                         "bounce@simulator.amazonses.com"]})
    camp.post(f"/campaigns/{cid}/send", json={"confirm": True})
    pipe.send_all()
    box = {m["to"]: m for m in camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"]}
    html = box["ok@example.com"]["html"]
    later()
    camp.get(_path(re.search(r'src="([^"]+/t/o/[^"]+)"', html).group(1)), headers={"user-agent": IPHONE})
    camp.get(_path(re.search(r'href="([^"]+/t/c/[^"]+)"', html).group(1)), headers={"user-agent": IPHONE})
    pipe.webhooks_all()
    kinds = sorted(e["event"] for e in receiver.events())
    assert kinds == sorted(["campaign.created", "campaign.sent", "campaign.opened", "campaign.clicked",
                            "email.delivered", "email.bounced"])
    for req in receiver.requests:
        assert _verify(req) and req["headers"]["webhook-id"].startswith("msg_")
        assert req["headers"]["webhook-timestamp"].isdigit()
    sent = [e for e in receiver.events() if e["event"] == "campaign.sent"][0]
    assert sent["data"]["campaign_id"] == cid and sent["data"]["recipient_count"] == 2
    assert sent["data"]["provider"] == "sandbox" and set(sent) == {"event", "timestamp", "data"}
    st = camp.get(f"/campaigns/{cid}").json()["data"]["stats"]
    assert st["bounced"] == 1 and st["bounce_rate"] == 50.0


def test_retries_keep_webhook_id_and_dead_letter_after_max(new_campaign, camp, pipe, receiver):
    import time

    wh = _hook(camp, receiver, ["campaign.created"])
    receiver.script = [500, 500, 500]  # fails its first 3 attempts
    new_campaign()
    for _ in range(8):
        pipe.webhooks_all()
        if len(receiver.requests) >= 4:
            break
        time.sleep(1.1)
    assert [r["headers"]["webhook-id"] for r in receiver.requests].count(receiver.requests[0]["headers"]["webhook-id"]) == 4
    dl = camp.get(f"/webhooks/{wh['id']}/deliveries").json()["data"]["deliveries"]
    assert dl[0]["status"] == "delivered" and dl[0]["attempts"] == 4 and dl[0]["last_status_code"] == 200
    # always failing → DLQ after the configured attempts (4 locally)
    receiver.requests.clear()
    receiver.default = 503
    new_campaign(name="second")
    for _ in range(10):
        pipe.webhooks_all()
        time.sleep(1.1)
        if len(receiver.requests) >= 4 and pipe.queue_depth("CAMPAIGNS_WEBHOOK_QUEUE_URL") == 0:
            break
    import os

    assert pipe.queue_depth("CAMPAIGNS_WEBHOOK_DLQ_URL") == 1 if "CAMPAIGNS_WEBHOOK_DLQ_URL" in os.environ else True
    dl = camp.get(f"/webhooks/{wh['id']}/deliveries").json()["data"]["deliveries"]
    assert dl[0]["status"] == "dead_lettered" and dl[0]["attempts"] == 4 and dl[0]["last_status_code"] == 503
    # manual retry redelivers
    receiver.default = 200
    r = camp.post(f"/webhooks/{wh['id']}/deliveries/{dl[0]['id']}/retry")
    assert r.status == 202
    pipe.webhooks_all()
    assert camp.get(f"/webhooks/{wh['id']}/deliveries").json()["data"]["deliveries"][0]["status"] == "delivered"


def test_webhook_crud_test_delivery_and_410(new_campaign, camp, receiver, pipe):
    assert camp.post("/webhooks", json={"name": "x", "url": receiver.url, "events": []}).status == 422
    assert camp.post("/webhooks", json={"name": "x", "url": receiver.url, "events": ["nope"]}).status == 422
    wh = _hook(camp, receiver, ["campaign.created"])
    assert camp.get(f"/webhooks/{wh['id']}").json()["data"]["url"] == receiver.url
    assert [w["id"] for w in camp.get("/webhooks").json()["data"]["webhooks"]] == [wh["id"]]
    r = camp.post(f"/webhooks/{wh['id']}/test")
    assert r.status == 200 and r.json()["data"]["status_code"] == 200 and r.json()["data"]["success"] is True
    assert receiver.events()[0]["event"] == "webhook.test" and _verify(receiver.requests[0])
    assert camp.put(f"/webhooks/{wh['id']}", json={"enabled": False}).json()["data"]["enabled"] is False
    camp.put(f"/webhooks/{wh['id']}", json={"enabled": True})
    receiver.default = 410
    new_campaign()
    pipe.webhooks_all()
    assert camp.get(f"/webhooks/{wh['id']}").json()["data"]["enabled"] is False
    assert camp.delete(f"/webhooks/{wh['id']}").status == 200
    assert camp.get(f"/webhooks/{wh['id']}").status == 404


def test_ssrf_outside_local_mode(new_campaign, camp, monkeypatch):
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("CAMPAIGNS_STAGE", "prod")
    reset_settings()
    try:
        for url in ("https://169.254.169.254/latest", "https://10.0.0.1/x", "https://[::1]/x",
                    "https://localhost/x", "http://example.com/x"):
            r = camp.post("/webhooks", json={"name": "x", "url": url, "events": ["campaign.created"]})
            assert r.status == 422, url
            assert "url" in r.json()["error"]["details"]
    finally:
        monkeypatch.setenv("CAMPAIGNS_STAGE", "local")
        reset_settings()


def test_unsubscribe_link_one_click(new_campaign, camp, pipe):
    cid, box = _sent_campaign(new_campaign, camp, pipe, n=1)
    unsub = _path(box["t0@example.com"]["headers"]["List-Unsubscribe"][1:-1])
    r = camp.post(unsub, body="List-Unsubscribe=One-Click",
                  headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status == 200  # no contact behind a test address: nothing to change, still a 200 page
    assert camp.get("/unsubscribe/forged.token").status == 404


def test_bulk_send_progress(new_campaign, camp, pipe):
    r = camp.post("/email/bulk", json={"recipients": [{"to": f"b{i}@example.com", "variables": {"n": i}}
                                                      for i in range(7)] + [{"to": "b0@example.com"}],
                                       "subject": "Hi {{n}}", "html": "<p>{{n}}</p>", "batch_size": 3})
    assert r.status == 202, r.text
    d = r.json()["data"]
    assert d["total"] == 8 and d["queued"] == 7
    s = camp.get(f"/email/bulk/{d['bulk_id']}").json()["data"]
    assert s["status"] == "queued" and s["sent"] == 0 and s["batches_total"] == 3
    pipe.send_all()
    s = camp.get(f"/email/bulk/{d['bulk_id']}").json()["data"]
    assert s["status"] == "completed" and s["sent"] == 7 and s["batches_done"] == 3
    box = camp.get("/email/outbox", query={"bulk_id": d["bulk_id"]}).json()["data"]["messages"]
    assert {m["subject"] for m in box} == {f"Hi {i}" for i in range(7)}
    assert camp.post("/email/bulk", json={"recipients": [{"to": "a@example.com"}], "subject": "s", "html": "h",
                                          "batch_size": 1001}).status == 422
    assert camp.get("/email/bulk/unknown").status == 404
