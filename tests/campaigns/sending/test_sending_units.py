"""Unit tests of pure domain rules: rendering/tracking injection, tokens, machine opens, counting,
webhook signing, SSRF validation."""
from __future__ import annotations

import base64
import hashlib
import hmac

import pytest


@pytest.fixture
def secret(monkeypatch):
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("CAMPAIGNS_SIGNING_SECRET", "unit-secret")
    monkeypatch.setenv("CAMPAIGNS_PUBLIC_BASE_URL", "https://mail.example.com")
    monkeypatch.setenv("CAMPAIGNS_STAGE", "local")
    reset_settings()
    yield
    reset_settings()


def test_compose_injects_utm_tracking_pixel_and_unsubscribe(secret):
    from campaigns.sending import tokens
    from campaigns.sending.compose import Tracking, compose

    c = compose("Hi {{first_name}}", "<html><body><a href=\"https://x.example/p?a=1&amp;utm_source=keep\">x</a>"
                "<a href='mailto:a@b.c'>m</a><a href=\"{{unsubscribe_url}}\">u</a></body></html>",
                None, {"first_name": "<Ann>"}, tracking=Tracking(utm={"source": "nl", "medium": "email"}),
                link_payload={"a": "acct", "s": "c-1", "r": "r1"}, unsubscribe=True)
    assert c.subject == "Hi <Ann>"
    assert c.headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    unsub = c.headers["List-Unsubscribe"][1:-1]
    assert unsub.startswith("https://mail.example.com/unsubscribe/") and f'href="{unsub}"' in c.html
    assert "mailto:a@b.c" in c.html and "https://x.example" not in c.html
    token = c.html.split("/t/c/")[1].split('"')[0]
    target = tokens.read(token, "c")["u"]
    assert target == "https://x.example/p?a=1&utm_source=keep&utm_medium=email"
    assert c.html.index("/t/o/") < c.html.index("</body>")
    # plain-text alternative (issue 30): the converter keeps each link's target, the unsubscribe URL too
    lines = c.text.splitlines()
    assert lines[0].startswith("x (https://mail.example.com/t/c/") and lines[0].endswith(")")
    assert "m (mailto:a@b.c)" in c.text and f"u ({unsub})" in c.text and "/t/o/" not in c.text


def test_compose_without_tracking_leaves_links(secret):
    from campaigns.sending.compose import Tracking, compose

    c = compose("s", "<a href='https://x.example/'>x</a>", None, {}, tracking=Tracking(opens=False, clicks=False),
                link_payload={"a": "a", "s": "s", "r": "r"}, unsubscribe=False)
    assert "https://x.example/" in c.html and "/t/o/" not in c.html and c.headers == {}


def test_subject_variables_cannot_inject_headers(secret):
    from campaigns.sending.compose import Tracking, compose

    c = compose("Hi {{n}}", None, "t", {"n": "x\r\nBcc: evil@example.com"}, tracking=Tracking(),
                link_payload=None, unsubscribe=False)
    assert "\n" not in c.subject and "\r" not in c.subject


def test_tokens_reject_tampering_and_wrong_kind(secret):
    from campaigns.sending import tokens

    t = tokens.make({"k": "o", "a": "acct", "s": "c-1", "r": "r"})
    assert tokens.read(t, "o")["a"] == "acct"
    assert tokens.read(t, "c") is None
    assert tokens.read(t[:-2] + "xx", "o") is None
    assert tokens.read("", "o") is None and tokens.read("a.b.c", "o") is None


def test_machine_open_detection():
    from campaigns.tracking.service import device, machine_reason
    from lambdakit import clock

    assert machine_reason("Mozilla/5.0", None) == "apple_mpp"
    assert machine_reason("", None) == "no_user_agent"
    assert machine_reason("Barracuda Sentinel (EE)", None) == "scanner"
    assert machine_reason("Mozilla/5.0 (Windows NT 10.0) Chrome/120", clock.now_iso()) == "too_fast"
    assert machine_reason("Mozilla/5.0 (Windows NT 10.0) Chrome/120", "2020-01-01T00:00:00Z") is None
    d = device("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36")
    assert d == {"type": "desktop", "os": "Windows", "client": "Chrome"}


def test_count_per_provider():
    from campaigns.sending.pipeline import Result, count

    rs = [Result("1", "a", "delivered"), Result("2", "b", "bounced"), Result("3", "c", "skipped"),
          Result("4", "d", "failed"), Result("5", "e", "claimed")]
    assert count(rs, "sandbox") == {"sent": 3, "delivered": 1, "bounced": 1, "complained": 0, "failed": 1,
                                    "skipped": 1}
    # SES: only "sent" here; feedback counts delivery/bounce once
    assert count([Result("1", "a", "delivered"), Result("2", "b", "sent")], "ses")["delivered"] == 0


def test_signature_headers():
    from campaigns.webhooks.service import sign_headers

    body = b'{"event":"x"}'
    h = sign_headers("sec", "d1", body, 1700000000)
    assert h["x-campaign-signature"] == hmac.new(b"sec", body, hashlib.sha256).hexdigest()
    assert h["webhook-id"] == "msg_d1" and h["webhook-timestamp"] == "1700000000"
    std = hmac.new(b"sec", b"msg_d1.1700000000." + body, hashlib.sha256).digest()
    assert h["webhook-signature"] == "v1," + base64.b64encode(std).decode()


def test_webhook_event_validation():
    from pydantic import ValidationError

    from campaigns.webhooks.models import WebhookCreate

    with pytest.raises(ValidationError):
        WebhookCreate(name="x", url="https://a.example", events=[])
    with pytest.raises(ValidationError):
        WebhookCreate(name="x", url="https://a.example", events=["campaign.deleted"])
    assert WebhookCreate(name="x", url="https://a.example",
                         events=["email.bounced", "email.bounced"]).events == ["email.bounced"]


def test_link_signing_secret_from_its_arn(campaigns_app):
    """Deployed, the signing key comes from Secrets Manager (through the shared client), once per ARN."""
    from campaigns.sending import tokens
    from lambdakit import aws, secrets

    sm = aws.client("secretsmanager")
    arn = sm.create_secret(Name=f"link-key-{id(sm)}", SecretString="s3cr3t-link-key")["ARN"]
    secrets.forget()
    try:
        assert tokens._secret_from_arn(arn) == "s3cr3t-link-key"
        sm.put_secret_value(SecretId=arn, SecretString="rotated")
        assert tokens._secret_from_arn(arn) == "s3cr3t-link-key"  # cached for the container (an hour)
        assert secrets._cache[arn][0] is sm  # noqa: SLF001 - read with the shared client
    finally:
        secrets.forget()
