"""Checks on a message's bytes as mail software reads them (issue 30: outside tools are the judge).

``parse(raw)`` reads the bytes with Python's ``email`` package (``policy.default``, as a receiving
program would); ``check_wire`` asserts RFC 5322 / RFC 2369 / RFC 8058 on the bytes themselves;
``spam_score`` runs SpamAssassin (``spamassassin -t -L``: local rules only, no network) and returns
its score.
"""
from __future__ import annotations

import email
import email.policy
import email.utils
import re
import subprocess

from tests.tooling import require_binary


def parse(raw: bytes) -> email.message.EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)  # type: ignore[return-value]


def header_block(raw: bytes) -> bytes:
    return raw.split(b"\r\n\r\n", 1)[0]


def raw_header(raw: bytes, name: str) -> str | None:
    """A header's value exactly as written (continuation lines joined, the folds removed), or None."""
    lines = header_block(raw).split(b"\r\n")
    for i, line in enumerate(lines):
        if line.lower().startswith(name.lower().encode() + b":"):
            value = line.split(b":", 1)[1]
            j = i + 1
            while j < len(lines) and lines[j][:1] in (b" ", b"\t"):
                value += lines[j]  # unfolding: the CRLF goes, the whitespace stays
                j += 1
            return value.decode("ascii").strip()
    return None


def check_wire(raw: bytes, *, from_domain: str, unsubscribe: bool) -> email.message.EmailMessage:
    """The message's bytes obey the rules every mail of the services must (and return it parsed)."""
    assert b"\r\n" in raw and not re.search(rb"[^\r]\n", raw), "CRLF line ends only"
    assert all(len(line) <= 998 for line in raw.split(b"\r\n")), "RFC 5322: lines of at most 998 octets"
    raw.decode("ascii")  # 7-bit on the wire
    msg = parse(raw)
    assert msg["MIME-Version"] == "1.0"
    date = email.utils.parsedate_to_datetime(str(msg["Date"]))
    assert date.tzinfo is not None
    mid = str(msg["Message-ID"])
    assert re.fullmatch(r"<[^<>@\s]+@" + re.escape(from_domain) + ">", mid), mid
    alt = msg if msg.get_content_type() == "multipart/alternative" else next(
        p for p in msg.iter_parts() if p.get_content_type() == "multipart/alternative")
    kinds = [p.get_content_type() for p in alt.iter_parts()]
    assert kinds == ["text/plain", "text/html"], kinds  # text first, the preferred HTML last
    lu = raw_header(raw, "List-Unsubscribe")
    if not unsubscribe:
        assert lu is None and raw_header(raw, "List-Unsubscribe-Post") is None
        return msg
    assert lu is not None and "=?" not in lu, "RFC 2369: no encoded-words"
    assert re.fullmatch(r"<https?://[\x21-\x7e]+>", lu), lu
    assert str(msg["List-Unsubscribe"]) == lu  # what mail software reads is what we wrote
    assert raw_header(raw, "List-Unsubscribe-Post") == "List-Unsubscribe=One-Click"
    return msg


def parts(msg: email.message.EmailMessage) -> tuple[str, str]:
    """(text, html) of a parsed message."""
    text = msg.get_body(preferencelist=("plain",))
    html = msg.get_body(preferencelist=("html",))
    return (text.get_content() if text else ""), (html.get_content() if html else "")


def unsubscribe_url(raw: bytes) -> str:
    return (raw_header(raw, "List-Unsubscribe") or "")[1:-1]


def spam_score(raw: bytes) -> tuple[float, str]:
    """SpamAssassin's score of the message and the rules that fired (``spamassassin -t -L``)."""
    exe = require_binary("spamassassin")
    out = subprocess.run([exe, "-t", "-L"], input=raw, capture_output=True, timeout=120).stdout.decode("utf-8", "replace")
    m = re.search(r"X-Spam-Status: \w+, score=(-?[\d.]+)", out)
    assert m, out[:2000]
    rules = re.findall(r"^\s*(-?[\d.]+) ([A-Z0-9_]+)\s", out.split("Content analysis details", 1)[-1], re.M)
    return float(m.group(1)), " ".join(f"{name}={pts}" for pts, name in rules)
