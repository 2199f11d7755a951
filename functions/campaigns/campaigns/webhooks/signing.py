"""Webhook secrets and delivery signatures (Standard Webhooks 1.0 and the spec's header).

Which key signs ``webhook-signature`` is decided by the secret's text, at every delivery (nothing
is stored beside it, so the rotation's previous secret follows the same rule):

* ``whsec_`` + strict base64 (standard alphabet, padded): a **Standard Webhooks secret**. The key is
  the base64-DECODED bytes, as the standard and its libraries (``standardwebhooks`` on PyPI and npm)
  read it. Generated secrets are ``whsec_`` + base64 of 32 random bytes.
* anything else (a secret of your own, or an old generated secret that is not valid base64): our own
  scheme. The same headers are sent, and ``webhook-signature`` is keyed with the secret's UTF-8
  bytes: the libraries verify it when given those bytes as a raw key (Python ``Webhook(secret.encode())``,
  Node ``new Webhook(Buffer.from(secret), {format: "raw"})``).

Migration of the secrets generated before (``whsec_`` + 32 URL-safe characters, signed with the
text bytes): the ones that are valid base64 (no ``-`` or ``_``) now sign with the decoded key and,
until rotated, also carry their former text-keyed signature as a second ``v1`` entry
(``LEGACY_GENERATED``), so a receiver verifying either way keeps working; the others stay on our own
scheme. ``x-campaign-signature`` (the spec's hex HMAC of the body keyed with the secret's text) is
the same for every secret, before and after.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets

from lambdakit.security import hmac_sha256_hex

PREFIX = "whsec_"
#: Random bytes of a generated secret (256 bits, the Standard Webhooks recommendation is 24-64).
SECRET_BYTES = 32
#: What the code before issue 30 generated: ``whsec_`` + ``token_urlsafe(24)`` (32 characters).
LEGACY_GENERATED = re.compile(r"whsec_[A-Za-z0-9_-]{32}")


def generate_secret() -> str:
    """``whsec_`` + base64 of 32 random bytes (Standard Webhooks)."""
    return PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


def standard_key(secret: str) -> bytes | None:
    """The decoded key of a Standard Webhooks secret (``whsec_`` + strict base64); ``None`` for any
    other secret (our own scheme)."""
    if not secret.startswith(PREFIX):
        return None
    try:
        key = base64.b64decode(secret[len(PREFIX):], validate=True)
    except (binascii.Error, ValueError):
        return None
    return key or None


def is_standard(secret: str) -> bool:
    return standard_key(secret) is not None


def _keys(secret: str) -> list[bytes]:
    """The keys whose signatures go into ``webhook-signature`` for ``secret``, first the one to use."""
    key = standard_key(secret)
    if key is None:
        return [secret.encode("utf-8")]
    if LEGACY_GENERATED.fullmatch(secret):  # an old generated secret: its former signature too
        return [key, secret.encode("utf-8")]
    return [key]


def _v1(key: bytes, msg_id: str, ts: int, body: bytes) -> str:
    digest = hmac.new(key, f"{msg_id}.{ts}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def sign_headers(secret: str, delivery_id: str, body: bytes, ts: int, previous: str | None = None) -> dict[str, str]:
    """The signature headers of one attempt.

    ``webhook-id`` (``msg_{delivery_id}``, stable across retries), ``webhook-timestamp`` (Unix seconds
    of this attempt) and ``webhook-signature``: ``v1,`` + base64 HMAC-SHA256 of
    ``"{webhook-id}.{webhook-timestamp}.{body}"``. ``x-campaign-signature`` is the spec's signature:
    lowercase hex HMAC-SHA256 of the body bytes keyed with the secret's text.

    During a rotation's grace period (``previous``), ``webhook-signature`` lists the new and the old
    secret's signatures, space-separated (``v1,<new> v1,<old>``; the libraries accept a match on
    any), and ``x-campaign-signature-previous`` carries the old secret's hex signature."""
    msg_id = f"msg_{delivery_id}"
    sigs = [_v1(k, msg_id, ts, body) for k in _keys(secret)]
    headers = {"x-campaign-signature": hmac_sha256_hex(secret, body), "webhook-id": msg_id,
               "webhook-timestamp": str(ts)}
    if previous:
        headers["x-campaign-signature-previous"] = hmac_sha256_hex(previous, body)
        sigs += [_v1(k, msg_id, ts, body) for k in _keys(previous)]
    headers["webhook-signature"] = " ".join(dict.fromkeys(sigs))
    return headers
