"""Amazon SES v2: the real provider (data access: the only module calling SES)."""
from __future__ import annotations

import re
import threading
import time

from lambdakit import aws

from ..attachments.limits import SES_MAX_MESSAGE_BYTES
from ..settings import settings
from .message import OutboundMessage, Unrenderable

_TAG_SAFE = re.compile(r"[^A-Za-z0-9_\-.@]")
_rate_lock = threading.Lock()
_rate: tuple[float, float] | None = None  # (max_send_rate, fetched_at)


class SendRejected(Exception):
    """SES refused this message (bad address, unverified sender...): not worth retrying."""


class SendThrottled(Exception):
    """SES throttled or failed transiently: retry later."""


def max_send_rate() -> float:
    """SES ``MaxSendRate`` from GetAccount, cached for 10 minutes per container."""
    global _rate
    if settings().ses_max_send_rate > 0:
        return float(settings().ses_max_send_rate)
    with _rate_lock:
        now = time.monotonic()
        if _rate and now - _rate[1] < 600:
            return _rate[0]
        try:
            quota = aws.client("sesv2").get_account().get("SendQuota") or {}
            value = float(quota.get("MaxSendRate") or settings().ses_fallback_max_send_rate)
        except Exception:  # noqa: BLE001 - the emulator lacks GetAccount; fall back to configuration
            value = float(settings().ses_fallback_max_send_rate)
        _rate = (value, now)
        return value


def _tag(v: str) -> str:
    return _TAG_SAFE.sub("_", v)[:255] or "none"


def render(msg: OutboundMessage) -> bytes:
    """The message's MIME bytes, as SES gets them and the sandbox stores them (one builder,
    ``lambdakit.mime``). ``Unrenderable`` when the ``email`` package refuses the message;
    ``SendRejected`` when it is over SES's size (not worth a call, never worth a retry)."""
    from email.errors import MessageError

    try:
        raw = msg.mime()
    except (ValueError, MessageError) as exc:  # the email package refuses the message: not retryable
        raise Unrenderable(f"unrenderable: {exc}") from None
    if len(raw) > SES_MAX_MESSAGE_BYTES:
        raise SendRejected(f"MessageTooLarge: {len(raw)} bytes encoded, at most {SES_MAX_MESSAGE_BYTES}")
    return raw


def send(msg: OutboundMessage, raw: bytes | None = None) -> str:
    """Send one message (``raw``: its bytes from ``render``); returns the SES message id."""
    from botocore.exceptions import ClientError

    raw = raw if raw is not None else render(msg)
    kw: dict = {
        "FromEmailAddress": msg.from_email,
        "Destination": {"ToAddresses": [msg.to], "CcAddresses": msg.cc, "BccAddresses": msg.bcc},
        "Content": {"Raw": {"Data": raw}},
        "EmailTags": [{"Name": "account", "Value": _tag(msg.account_id)}]
        + ([{"Name": "send", "Value": _tag(msg.send_id)}] if msg.send_id else [])
        + ([{"Name": "rkey", "Value": _tag(msg.rkey)}] if msg.rkey else []),
    }
    cs = settings().ses_configuration_set
    if cs:
        kw["ConfigurationSetName"] = cs
    try:
        return aws.client("sesv2").send_email(**kw)["MessageId"]
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        if code in ("TooManyRequestsException", "Throttling", "ThrottlingException", "LimitExceededException",
                    "InternalFailure", "ServiceUnavailable"):
            raise SendThrottled(code) from exc
        raise SendRejected(code or "rejected") from exc
