"""Issue 30 item 6: the Standard Webhooks reference library (``standardwebhooks`` 1.1.0, PyPI), as a
receiver, verifies our deliveries: a test delivery, a real event, a retried delivery and a delivery
during a secret rotation. Every check runs on the HTTP request as the delivery worker sent it (the
headers and body bytes the ``receiver`` fixture's HTTP server read off the socket), through the
receiver example of docs/campaigns-webhooks.md."""
from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import string
import time

from tests.tooling import require_module

from .receivers import python_receiver

swh = require_module("standardwebhooks")


def _hook(camp, receiver, events=("campaign.created",), **over) -> dict:
    r = camp.post("/webhooks", json={"name": "std", "url": receiver.url, "events": list(events), **over})
    assert r.status == 201, r.text
    return r.json()["data"]


def _lib_verifies(secret: str | bytes, req: dict) -> bool:
    """The library's answer on the request as delivered (a string secret that is not base64 is a
    ValueError from its decoding, or another key)."""
    try:
        swh.Webhook(secret).verify(req["body"], req["headers"])
    except (swh.WebhookVerificationError, ValueError):
        return False
    return True


def test_generated_secret_is_whsec_base64_of_32_bytes(camp, receiver):
    secrets_seen = {_hook(camp, receiver)["secret"] for _ in range(3)}
    assert len(secrets_seen) == 3
    for s in secrets_seen:
        assert s.startswith("whsec_")
        assert len(base64.b64decode(s[6:], validate=True)) == 32


def test_library_verifies_a_test_delivery(camp, receiver, monkeypatch):
    w = _hook(camp, receiver)
    assert camp.post(f"/webhooks/{w['id']}/test").json()["data"]["success"] is True
    req = receiver.requests[-1]
    status, event = python_receiver(w["secret"], monkeypatch)(req["body"], req["headers"])
    assert status == 204 and event["event"] == "webhook.test" and event["data"]["webhook_id"] == w["id"]
    # the documented receiver refuses another secret, a changed body and a changed id
    other = "whsec_" + base64.b64encode(b"\x01" * 32).decode()
    assert python_receiver(other, monkeypatch)(req["body"], req["headers"])[0] == 401
    receive = python_receiver(w["secret"], monkeypatch)
    assert receive(req["body"].replace(b"test", b"tesT"), req["headers"])[0] == 401
    assert receive(req["body"], {**req["headers"], "webhook-id": "msg_other"})[0] == 401
    # the spec's header is unchanged: hex HMAC of the body keyed with the secret's text
    assert req["headers"]["x-campaign-signature"] == hmac.new(w["secret"].encode(), req["body"],
                                                              hashlib.sha256).hexdigest()


def test_library_verifies_a_real_event(new_campaign, camp, pipe, receiver, monkeypatch):
    w = _hook(camp, receiver)
    cid = new_campaign()
    pipe.webhooks_all()
    [req] = receiver.requests
    status, event = python_receiver(w["secret"], monkeypatch)(req["body"], req["headers"])
    assert status == 204 and event["event"] == "campaign.created" and event["data"]["campaign_id"] == cid


def test_library_verifies_retried_deliveries(new_campaign, camp, pipe, receiver, monkeypatch):
    w = _hook(camp, receiver)
    receiver.script = [500]  # the first attempt fails; the worker's retry (1 s locally) succeeds
    new_campaign()
    for _ in range(6):
        pipe.webhooks_all()
        if len(receiver.requests) >= 2:
            break
        time.sleep(1.1)
    first, retried = receiver.requests[:2]
    assert first["headers"]["webhook-id"] == retried["headers"]["webhook-id"]
    # a manual retry of the delivered delivery: the same id again, signed afresh
    [d] = camp.get(f"/webhooks/{w['id']}/deliveries").json()["data"]["deliveries"]
    assert d["status"] == "delivered" and d["attempts"] == 2
    assert camp.post(f"/webhooks/{w['id']}/deliveries/{d['id']}/retry").status == 202
    pipe.webhooks_all()
    manual = receiver.requests[-1]
    assert len(receiver.requests) == 3 and manual["headers"]["webhook-id"] == first["headers"]["webhook-id"]
    receive = python_receiver(w["secret"], monkeypatch)
    for req in (first, retried, manual):
        status, event = receive(req["body"], req["headers"])
        assert status == 204 and event["event"] == "campaign.created"


def test_library_verifies_with_old_and_new_secret_during_rotation(new_campaign, camp, pipe, receiver, monkeypatch):
    w = _hook(camp, receiver)
    old = w["secret"]
    new = camp.post(f"/webhooks/{w['id']}/rotate-secret").json()["data"]["secret"]
    assert new != old
    camp.post(f"/webhooks/{w['id']}/test")
    new_campaign()
    pipe.webhooks_all()
    assert len(receiver.requests) == 2
    for req in receiver.requests:
        assert len(req["headers"]["webhook-signature"].split(" ")) == 2
        for secret in (old, new):  # a receiver holding either secret verifies
            assert python_receiver(secret, monkeypatch)(req["body"], req["headers"])[0] == 204
    # a rotation without grace: the old secret verifies no more
    newest = camp.post(f"/webhooks/{w['id']}/rotate-secret", json={"grace_period_seconds": 0}).json()["data"]["secret"]
    camp.post(f"/webhooks/{w['id']}/test")
    req = receiver.requests[-1]
    assert _lib_verifies(newest, req) and not _lib_verifies(new, req) and not _lib_verifies(old, req)


def test_own_secret_verifies_as_a_raw_key(camp, receiver):
    """A secret of your own is no Standard Webhooks secret: the library verifies its deliveries when
    handed the secret's UTF-8 bytes as the key, not the string."""
    own = "my-own-secret-0123456789"
    w = _hook(camp, receiver, secret=own)
    camp.post(f"/webhooks/{w['id']}/test")
    req = receiver.requests[-1]
    assert _lib_verifies(own.encode(), req)
    assert not _lib_verifies(own, req)  # the string itself is read as base64: another key (or none)
    assert req["headers"]["x-campaign-signature"] == hmac.new(own.encode(), req["body"], hashlib.sha256).hexdigest()


def test_secrets_generated_before_issue_30(camp, receiver):
    """Old generated secrets (``whsec_`` + 32 URL-safe characters, keyed with their text): valid base64
    ones verify as given and keep their former signature beside; the others stay raw-key secrets."""
    alnum = "whsec_" + "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(32))
    dashed = "whsec_" + "-_" + "".join(secrets.choice(string.ascii_letters) for _ in range(30))
    for legacy, decodes in ((alnum, True), (dashed, False)):
        w = _hook(camp, receiver, secret=legacy)
        camp.post(f"/webhooks/{w['id']}/test")
        req = receiver.requests[-1]
        assert _lib_verifies(legacy.encode(), req)  # the former key still verifies
        assert _lib_verifies(legacy, req) is decodes
        assert len(req["headers"]["webhook-signature"].split(" ")) == (2 if decodes else 1)


def test_signing_unit_rules():
    from campaigns.webhooks import signing

    assert signing.standard_key("whsec_" + base64.b64encode(b"k" * 32).decode()) == b"k" * 32
    for own in ("test-secret", "whsec_", "whsec_not base64!", "whsec_abc", "WHSEC_" + "A" * 44):
        assert signing.standard_key(own) is None, own
    h = signing.sign_headers("whsec_" + base64.b64encode(b"k" * 32).decode(), "d1", b"{}", 1700000000)
    expected = hmac.new(b"k" * 32, b"msg_d1.1700000000.{}", hashlib.sha256).digest()
    assert h["webhook-signature"] == "v1," + base64.b64encode(expected).decode()
