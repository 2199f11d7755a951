"""Payment gateway abstraction: ``razorpay`` (Razorpay REST API) or ``sandbox`` (local orders,
same signatures). Credentials come from the PaymentSecret JSON ``{key_id, key_secret, webhook_secret}``
(plain ``INTERNSHIPS_PAYMENT_*`` variables override it locally).

Signatures (Razorpay's scheme, used by both):
* checkout: ``HMAC_SHA256(key_secret, order_id + "|" + payment_id)`` hex;
* webhook:  ``HMAC_SHA256(webhook_secret, raw_body)`` hex in ``X-Razorpay-Signature``.
"""
from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from dataclasses import dataclass

from lambdakit.errors import ServiceUnavailable
from lambdakit.ids import random_code
from lambdakit.security import constant_time_equals, hmac_sha256_hex

from ..auth import secrets_store
from ..settings import settings

_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


@dataclass(frozen=True)
class Credentials:
    key_id: str
    key_secret: str
    webhook_secret: str


def credentials() -> Credentials:
    s = settings()
    data = secrets_store.secret_json(s.payment_secret_arn) if s.payment_secret_arn else {}
    c = Credentials(s.payment_key_id or str(data.get("key_id") or ""),
                    s.payment_key_secret or str(data.get("key_secret") or ""),
                    s.payment_webhook_secret or str(data.get("webhook_secret") or ""))
    if not c.key_id or not c.key_secret:
        raise ServiceUnavailable("Payments are not configured")
    return c


def checkout_signature(key_secret: str, order_id: str, payment_id: str) -> str:
    return hmac_sha256_hex(key_secret, f"{order_id}|{payment_id}")


def verify_checkout(order_id: str, payment_id: str, signature: str) -> bool:
    c = credentials()
    return constant_time_equals(checkout_signature(c.key_secret, order_id, payment_id), (signature or "").lower())


def verify_webhook(raw_body: bytes, signature: str | None) -> bool:
    c = credentials()
    if not c.webhook_secret or not signature:
        return False
    return constant_time_equals(hmac_sha256_hex(c.webhook_secret, raw_body), signature.strip().lower())


class SandboxGateway:
    name = "sandbox"

    def create_order(self, amount_paise: int, receipt: str, notes: dict) -> dict:
        credentials()  # same configuration requirement as the real gateway
        return {"id": "order_" + random_code(14, _ALNUM), "amount": amount_paise, "currency": "INR",
                "receipt": receipt, "status": "created"}


class RazorpayGateway:
    name = "razorpay"

    def create_order(self, amount_paise: int, receipt: str, notes: dict) -> dict:
        c = credentials()
        body = json.dumps({"amount": amount_paise, "currency": "INR", "receipt": receipt[:40],
                           "notes": notes}).encode()
        auth = base64.b64encode(f"{c.key_id}:{c.key_secret}".encode()).decode()
        req = urllib.request.Request(settings().razorpay_api_url.rstrip("/") + "/orders", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"Basic {auth}"})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 - fixed gateway URL
                data = json.loads(resp.read(1_000_000))
        except (urllib.error.URLError, ValueError, TimeoutError, OSError):
            raise ServiceUnavailable("Payment gateway unavailable, please retry") from None
        if not isinstance(data, dict) or not str(data.get("id", "")).startswith("order_"):
            raise ServiceUnavailable("Payment gateway returned an unexpected answer")
        return data


def gateway():
    return RazorpayGateway() if settings().payment_provider == "razorpay" else SandboxGateway()
