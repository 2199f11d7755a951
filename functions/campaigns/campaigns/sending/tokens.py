"""Signed link tokens for the open pixel, click redirects and one-click unsubscribe: composed into
every message by ``compose``, read back by the public tracking routes (``campaigns.tracking``).

A token is ``base64url(json payload).base64url(HMAC-SHA256)`` (``lambdakit.security.sign_token``)
keyed with the service's link-signing secret. Payload keys are short to keep links small:

``k`` kind (``o`` open, ``c`` click, ``u`` unsubscribe), ``a`` account id, ``s`` send id,
``r`` recipient key, ``t`` contact id (optional), ``v`` A/B variant (optional), ``u`` target URL
(click only). Nothing personal (no email address) travels in a link.
"""
from __future__ import annotations

import base64
import json

from lambdakit import baseurl
from lambdakit.security import sign_token, verify_token

from ..settings import settings


def _secret_from_arn(arn: str) -> str:
    # Cached per container for an hour (lambdakit.secrets: GetSecretValue on the process's
    # shared client, botocore's data cut).
    from lambdakit import secrets

    return secrets.secret_string(arn, max_age=3600)


def signing_secret() -> str:
    s = settings()
    if s.signing_secret:
        return s.signing_secret
    if not s.signing_secret_arn:
        raise RuntimeError("no link-signing secret configured")
    return _secret_from_arn(s.signing_secret_arn)


def make(payload: dict) -> str:
    raw = json.dumps({k: v for k, v in payload.items() if v is not None}, separators=(",", ":"), sort_keys=True)
    return sign_token(signing_secret(), base64.urlsafe_b64encode(raw.encode()).decode().rstrip("="))


def read(token: str, kind: str) -> dict | None:
    """The payload of a valid token of ``kind``; ``None`` for anything forged, truncated or garbled."""
    if not token or len(token) > 8192:
        return None
    body = verify_token(signing_secret(), token)
    if body is None:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (ValueError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("k") != kind or not data.get("a") or not data.get("s"):
        return None
    return data


def base_url() -> str:
    """The one place links get their base (issue 33): the setting, else the SSM parameter
    ``make base-url`` writes, else ``BaseUrlNotSet`` (503 ``BASE_URL_NOT_SET``): no link that
    cannot resolve is ever sent (``lambdakit.baseurl``)."""
    s = settings()
    return baseurl.resolve(s.public_base_url, s.public_base_url_parameter)


#: The OpenAPI note of every send route's 503 (``doc(notes=...)``).
BASE_URL_NOTE = ("503 BASE_URL_NOT_SET: the stage's public base URL is not set (links would not resolve); "
                 "nothing is sent or queued until it is (docs/operations.md, make base-url). ")


def require_base_url() -> None:
    """Refuse a send before it is accepted when its links could not resolve."""
    base_url()


def base_url_problem() -> str | None:
    """Why sending is refused now (the health route), ``None`` when links resolve."""
    s = settings()
    return baseurl.problem(s.public_base_url, s.public_base_url_parameter)


def open_url(payload: dict) -> str:
    return f"{base_url()}/t/o/{make({**payload, 'k': 'o'})}"


def click_url(payload: dict, target: str) -> str:
    return f"{base_url()}/t/c/{make({**payload, 'k': 'c', 'u': target})}"


def unsubscribe_url(payload: dict) -> str:
    return f"{base_url()}/unsubscribe/{make({**payload, 'k': 'u'})}"
