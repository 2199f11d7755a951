"""Every campaigns route, called with realistic data through the real handlers, answers
a status its OpenAPI operation documents and a body that validates against the documented
schema (the same checks the fuzzer runs, on meaningful data rather than random data)."""
from __future__ import annotations

import json
import re

import jsonschema
import pytest

from local_runtime.openapi import service_document
from local_runtime.testing import services

BOUNDARY = "----openapi-walk"


def _multipart(file_bytes: bytes, **fields: str) -> tuple[bytes, dict]:
    parts = [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields.items()]
    parts.append(f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\n'
                 f'Content-Type: text/csv\r\n\r\n'.encode() + file_bytes + b"\r\n")
    parts.append(f"--{BOUNDARY}--\r\n".encode())
    return b"".join(parts), {"content-type": f"multipart/form-data; boundary={BOUNDARY}"}


@pytest.fixture(scope="module")
def document() -> dict:
    return service_document(services()["campaigns"])


def _operation(document: dict, method: str, path: str) -> tuple[str, dict]:
    for template, ops in document["paths"].items():
        rx = "^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"
        if re.match(rx, path) and method.lower() in ops:
            return template, ops[method.lower()]
    raise AssertionError(f"{method} {path} is not documented")


class Walk:
    def __init__(self, client, document: dict) -> None:
        self.client, self.document = client, document
        self.seen: set[tuple[str, str]] = set()

    def __call__(self, method: str, path: str, expect: int | None = None, **kw):
        r = self.client.request(method, path, **kw)
        import os
        if os.environ.get("WALK_DUMP"):
            with open(os.environ["WALK_DUMP"], "a") as f:
                f.write(f"### {method} {path} {r.status}\n{r.text[:3000]}\n")
            if expect is not None:
                assert r.status == expect, f"{method} {path}: {r.status} {r.text[:500]}"
            return r
        template, op = _operation(self.document, method, path.split("?")[0])
        self.seen.add((method.lower(), template))
        assert str(r.status) in op["responses"], f"{method} {path}: {r.status} undocumented ({r.text[:300]})"
        if expect is not None:
            assert r.status == expect, f"{method} {path}: {r.status} {r.text[:500]}"
        content = op["responses"][str(r.status)].get("content") or {}
        ctype = (r.headers.get("content-type") or "").split(";")[0].strip()
        if ctype != "application/json":
            assert ctype in content or not content or r.status == 404, f"{method} {path}: {ctype} undocumented"
        elif "application/json" in content:
            schema = {**content["application/json"]["schema"], "components": self.document["components"]}
            try:
                jsonschema.validate(r.json(), schema)
            except jsonschema.ValidationError as exc:
                raise AssertionError(f"{method} {path} {r.status}: {exc.message} at {list(exc.absolute_path)}\n"
                                     f"{json.dumps(r.json())[:1500]}") from None
        return r


def _links(html: str) -> dict[str, str]:
    out = {}
    for kind, rx in (("open", r"/t/o/[A-Za-z0-9_\-.=%~]+"), ("click", r"/t/c/[A-Za-z0-9_\-.=%~]+"),
                     ("unsub", r"/unsubscribe/[A-Za-z0-9_\-.=%~]+")):
        m = re.search(rx, html)
        if m:
            out[kind] = m.group(0)
    return out


def test_every_route_conforms(campaigns_app, camp, document, pipe, receiver, later):
    w = Walk(camp, document)
    w("GET", "/health", 200)
    w("GET", "/api", 200)
    # API keys
    w("GET", "/api-keys", 200)
    k = w("POST", "/api-keys", 201, json={"name": "ci", "role": "analyst", "plan": "standard",
                                          "restrictions": {"rate_limit": "10/minute", "ip_whitelist": ["10.0.0.0/8"]}})
    kid = k.json()["data"]["key_id"]
    w("GET", f"/api-keys/{kid}", 200)
    w("DELETE", f"/api-keys/{kid}", 200)
    w("GET", "/api-keys/nope", 404)
    w("POST", "/api-keys", 422, json={"name": ""})
    # lists
    lid = w("POST", "/lists", 201, json={"name": "Main", "visibility": "public", "double_opt_in": True}).json()["data"]["id"]
    w("GET", "/lists", 200)
    w("GET", f"/lists/{lid}", 200)
    w("PUT", f"/lists/{lid}", 200, json={"description": "d"})
    # contacts
    c1 = w("POST", "/contacts", 201, json={"email": "ann@example.com", "first_name": "Ann", "lists": [lid],
                                           "tags": ["vip"], "custom_fields": {"city": "Oslo"}}).json()["data"]["id"]
    w("POST", "/contacts", 409, json={"email": "ANN@example.com"})
    w("POST", "/contacts", 422, json={"email": "not-an-email"})
    w("POST", "/contacts", 201, json={"email": "bob@example.com", "first_name": "Bob", "lists": [lid]})
    w("GET", "/contacts", 200, query={"list_id": lid, "tag": "vip", "search": "an"})
    w("GET", "/contacts", 200, query={"limit": "1"})
    w("GET", f"/contacts/{c1}", 200)
    w("PUT", f"/contacts/{c1}", 200, json={"last_name": "Lee"})
    w("GET", "/contacts/export", 200, query={"format": "json"})
    w("GET", "/contacts/export", 200, query={"format": "csv", "fields": "email,first_name"})
    w("GET", "/contacts/exports/unknown-job", 404)  # r3-export: export job status (200 walked in tests/campaigns/r3_export)
    body, headers = _multipart(b"email,first_name,tags\r\ncat@example.com,Cat,a;b\r\nbad,X,\r\n", list_id=lid)
    w("POST", "/contacts/import", 200, body=body, headers=headers)
    job = w("POST", "/contacts/imports", 202, json={"list_id": lid}).json()["data"]
    w("GET", f"/contacts/imports/{job['job_id']}", 200)
    # templates
    tid = w("POST", "/templates", 201, json={"name": "T", "subject": "Hi {{first_name}}",
                                             "content": "<p>Hello {{first_name}}</p>"}).json()["data"]["id"]
    w("GET", "/templates", 200)
    w("GET", f"/templates/{tid}", 200)
    w("PUT", f"/templates/{tid}", 200, json={"category": "news"})
    w("POST", f"/templates/{tid}/preview", 200, json={"variables": {"first_name": "<b>Z</b>"}})
    # webhooks
    hook = w("POST", "/webhooks", 201, json={"name": "h", "url": receiver.url, "events": [
        "campaign.created", "campaign.sent", "campaign.opened", "campaign.clicked", "contact.subscribed",
        "contact.unsubscribed", "email.bounced", "email.delivered"]}).json()["data"]["id"]
    w("GET", "/webhooks", 200)
    w("GET", f"/webhooks/{hook}", 200)
    w("PUT", f"/webhooks/{hook}", 200, json={"name": "h2"})
    w("POST", f"/webhooks/{hook}/test", 200)
    w("POST", f"/webhooks/{hook}/rotate-secret", 200)
    # sender identities
    w("GET", "/senders", 200)
    sid = w("POST", "/senders", 201, json={"domain": "example.org"}).json()["data"]["id"]
    w("POST", "/senders", 409, json={"domain": "example.org"})
    w("POST", "/senders", 422, json={"email": "a@example.org", "domain": "example.org"})
    w("GET", f"/senders/{sid}", 200)
    w("DELETE", f"/senders/{sid}", 200)
    w("GET", f"/senders/{sid}", 404)
    # campaigns
    sandbox = {"from_email": "news@example.com", "from_name": "News", "provider": {"provider": "sandbox"}}
    cid = w("POST", "/campaigns", 201, json={
        "name": "Spring", "subject": "Hello {{first_name}}", "template_id": tid,
        "audience": {"type": "list", "list_id": lid}, "schedule": {"type": "immediate"},
        "tracking": {"track_opens": True, "track_clicks": True, "utm_params": {"source": "nl"}},
        "settings": sandbox}).json()["data"]["id"]
    w("PUT", f"/campaigns/{cid}", 200, json={"content": '<p>Hi {{first_name}} <a href="https://shop.example.com/x">'
                                                         'Shop</a> <a href="{{unsubscribe_url}}">unsub</a></p>',
                                             "template_id": None})
    w("GET", "/campaigns", 200)
    w("GET", "/campaigns", 200, query={"status": "draft", "search": "spr"})
    w("GET", f"/campaigns/{cid}", 200)
    w("POST", f"/campaigns/{cid}/send", 422, json={})
    w("POST", f"/campaigns/{cid}/send", 200, json={"send_test": True, "test_emails": ["qa@example.com"]})
    w("POST", f"/campaigns/{cid}/send", 200, json={"confirm": True})
    w("POST", f"/campaigns/{cid}/send", 409, json={"confirm": True})
    pipe.tick()
    pipe.send_all()
    pipe.tick()
    w("GET", f"/campaigns/{cid}", 200)
    cid2 = w("POST", "/campaigns", 201, json={"name": "Other", "subject": "S", "content": "<p>x</p>",
                                              "audience": {"type": "list", "list_id": lid}}).json()["data"]["id"]
    w("POST", f"/campaigns/{cid2}/cancel", 200)
    w("POST", f"/campaigns/{cid2}/cancel", 409)
    # email
    sent = w("POST", "/email/send", 200, json={"to": "dan@example.com", "subject": "S {{x}}", "html": "<p>{{x}}</p>",
                                               "variables": {"x": "1"}, "provider": {"provider": "sandbox"},
                                               "from_email": "news@example.com"})
    assert sent.json()["data"]["message_id"]
    att = w("POST", "/attachments", 201, json={"filename": "a.pdf", "type": "application/pdf"}).json()["data"]
    assert att["upload"]["fields"]["key"].endswith(att["attachment_id"])
    w("POST", "/attachments", 422, json={"filename": "a/b"})
    bulk = w("POST", "/email/bulk", 202, json={"recipients": [{"to": "e@example.com", "variables": {"n": "E"}}],
                                                "subject": "Hi {{n}}", "text": "Hello {{n}}",
                                                "provider": {"provider": "sandbox"}, "from_email": "news@example.com"})
    w("GET", f"/email/bulk/{bulk.json()['data']['bulk_id']}", 200)
    pipe.send_all()
    w("GET", f"/email/bulk/{bulk.json()['data']['bulk_id']}", 200)
    w("GET", "/email/bulk/nope", 404)
    w("GET", "/email/outbox", 200, query={"limit": "5"})
    msgs = w("GET", "/email/outbox", 200, query={"campaign_id": cid}).json()["data"]["messages"]
    w("GET", f"/email/outbox/{msgs[0]['id']}/raw", 200)  # issue 30: message/rfc822
    w("GET", "/email/outbox/sandbox-nope/raw", 404)
    links = _links(next(m["html"] for m in msgs if "ann@" in m["to"]))
    # tracking (public)
    later(120)
    w("GET", links["open"], 200, headers={"user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64)"})
    w("GET", "/t/o/garbage", 200)
    w("GET", links["click"], 302)
    w("GET", "/t/c/garbage", 404)
    w("GET", links["unsub"], 200)
    w("POST", links["unsub"], 200)
    w("GET", "/unsubscribe/garbage", 404)
    w("GET", links["unsub"] + "/resubscribe", 200)
    w("POST", links["unsub"] + "/resubscribe", 200)
    w("POST", links["unsub"] + "/resubscribe", 404)  # the offer was used
    w("GET", "/unsubscribe/garbage/resubscribe", 404)
    # the account's settings (issue 30)
    w("GET", "/account", 200)
    w("PUT", "/account", 200, json={"postal_address": "Example Ltd\n1 Main Street"})
    w("PUT", "/account", 422, json={"postal_address": 5})
    # analytics
    import datetime as dt

    from lambdakit import clock
    start, end = str((clock.now() - dt.timedelta(days=10)).date()), str((clock.now() + dt.timedelta(days=1)).date())
    w("GET", f"/campaigns/{cid}/analytics", 200)
    w("GET", f"/campaigns/{cid}/analytics", 200, query={"timeframe": "custom", "start_date": start, "end_date": end})
    w("GET", "/analytics/overall", 422)
    w("GET", "/analytics/overall", 200, query={"start_date": start, "end_date": end, "group_by": "week"})
    w("GET", "/analytics/providers", 200)
    w("GET", "/analytics/geographic", 200)
    w("GET", "/analytics/devices", 200)
    # webhook deliveries
    pipe.webhooks_all()
    deliveries = w("GET", f"/webhooks/{hook}/deliveries", 200).json()["data"]["deliveries"]
    w("POST", f"/webhooks/{hook}/deliveries/{deliveries[0]['id']}/retry", 202)
    # deletes
    w("DELETE", f"/templates/{tid}", 200)
    w("DELETE", f"/lists/{lid}", 200)
    w("DELETE", f"/contacts/{c1}", 200)
    w("GET", f"/contacts/{c1}", 404)
    w("DELETE", f"/webhooks/{hook}", 200)
    # every documented operation was walked
    documented = {(m, p) for p, ops in document["paths"].items() for m in ops}
    assert documented - w.seen == set()
