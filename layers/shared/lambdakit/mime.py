"""The one MIME builder of every mail the services send (issue 30): campaigns (sandbox and SES)
and internships (sandbox and SES) hand their rendered message to ``build`` and get the bytes that
go to SES (``SendEmail`` ``Content.Raw``) or into the sandbox's log: what a reader of the log sees
is what a mailbox receives.

The message, as RFC 5322, RFC 2045-2049, RFC 2369 and RFC 8058 want it:

- ``Date``, ``Message-ID`` on the sending domain (the From address's), ``MIME-Version: 1.0``;
- ``multipart/alternative`` with the text part first and the HTML part last (the preferred one),
  inside ``multipart/mixed`` when there are attachments; bodies in 7-bit transfer encodings
  (quoted-printable/base64 where needed), CRLF line ends;
- ``List-Unsubscribe: <https://...>`` and ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``
  as plain ASCII. Python's ``email`` policy turns a header it cannot fold at whitespace into
  RFC 2047 encoded-words, which RFC 2369 does not allow (mailbox providers cannot read them): the
  policy here stores these headers verbatim and folds them itself, at whitespace only, with every
  line at most 998 octets; a value that cannot be written so is refused (``ValueError``), never
  encoded.

``html_to_text`` gives the text part from the HTML with ``inscriptis`` (links kept as
``text (url)``, the document ``<title>`` left out); it is imported on first use: lxml and
inscriptis add 43-74 ms to the first message a container builds (measured on a warm interpreter on
the shared 2-core dev machine; docs/quality.md), none to a container that sends nothing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import format_datetime, formataddr, make_msgid, parseaddr
from typing import Any, Iterable

from . import clock

#: headers written verbatim (never parsed into encoded-words): ASCII only, folded at whitespace
VERBATIM = frozenset({"list-unsubscribe", "list-unsubscribe-post"})
MAX_LINE = 998  # RFC 5322 2.1.1: octets per line, CRLF excluded
SOFT_LINE = 78
_PRINTABLE = re.compile(r"^[\x20-\x7e]*$")


def fold_verbatim(name: str, value: str, linesep: str = "\r\n") -> str:
    """``name: value`` folded only at whitespace (each fold = CRLF + the space that was there),
    lines at most 78 octets where the words allow and never above 998. Refuses non-ASCII, control
    characters and a word too long for one line (``ValueError``)."""
    if not _PRINTABLE.match(value):
        raise ValueError(f"{name} must be printable ASCII (RFC 2369: no encoded-words)")
    words = value.split(" ")
    lines: list[str] = [f"{name}: {words[0]}"]
    for w in words[1:]:
        if len(lines[-1]) + 1 + len(w) <= SOFT_LINE:
            lines[-1] += " " + w
        else:
            lines.append(" " + w)
    if any(len(line) > MAX_LINE for line in lines):
        raise ValueError(f"{name} has a word longer than {MAX_LINE} octets; it cannot be folded")
    return linesep.join(lines) + linesep


class WirePolicy(EmailPolicy):
    """``policy.SMTP`` (CRLF, 7-bit bodies) with the ``VERBATIM`` headers kept as given."""

    def header_store_parse(self, name: str, value: Any) -> tuple[str, Any]:
        if name.lower() in VERBATIM:
            text = str(value)
            fold_verbatim(name, text)  # refuse at once what could not be written
            return name, text
        return super().header_store_parse(name, value)

    def header_fetch_parse(self, name: str, value: Any) -> Any:
        if name.lower() in VERBATIM:
            return str(value)
        return super().header_fetch_parse(name, value)

    def fold(self, name: str, value: Any) -> str:
        if name.lower() in VERBATIM:
            return fold_verbatim(name, str(value), self.linesep)
        return super().fold(name, value)

    def fold_binary(self, name: str, value: Any) -> bytes:
        if name.lower() in VERBATIM:
            return fold_verbatim(name, str(value), self.linesep).encode("ascii")
        return super().fold_binary(name, value)


POLICY = WirePolicy(linesep="\r\n", cte_type="7bit", max_line_length=SOFT_LINE)


@dataclass(frozen=True)
class Attachment:
    filename: str
    content: bytes
    content_type: str = "application/octet-stream"


def build(*, from_email: str, to: str | Iterable[str], subject: str, text: str, html: str | None = None,
          from_name: str = "", cc: Iterable[str] = (), reply_to: str | None = None,
          list_unsubscribe: str | None = None, one_click: bool = False, headers: dict[str, str] | None = None,
          attachments: Iterable[Attachment] = (), message_id: str | None = None) -> bytes:
    """The message's bytes, as sent. ``list_unsubscribe``: the https unsubscribe URL (written as
    ``<url>``); ``one_click`` adds ``List-Unsubscribe-Post``. ``headers``: further headers (the
    ``VERBATIM`` ones among them are written verbatim). Raises ``ValueError`` (or the ``email``
    package's ``MessageError``) for a message that cannot be written."""
    msg = EmailMessage(policy=POLICY)
    msg["Date"] = format_datetime(clock.now().replace(microsecond=0))
    msg["From"] = formataddr((from_name, from_email)) if from_name else from_email
    msg["To"] = to if isinstance(to, str) else ", ".join(to)
    cc = list(cc)
    if cc:
        msg["Cc"] = ", ".join(cc)
    if reply_to:
        msg["Reply-To"] = reply_to
    msg["Subject"] = subject
    domain = parseaddr(from_email)[1].rpartition("@")[2]  # "Name <a@b>" given as from_email too
    msg["Message-ID"] = message_id or make_msgid(domain=domain or None)
    extra = dict(headers or {})
    if list_unsubscribe:
        extra["List-Unsubscribe"] = f"<{list_unsubscribe}>"
        if one_click:
            extra["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    for k, v in extra.items():
        if k.lower() not in {h.lower() for h in msg.keys()}:
            msg[k] = v
    msg.set_content(text or (html_to_text(html) if html else "") or " ")
    if html:
        msg.add_alternative(html, subtype="html")
    for a in attachments:
        maintype, _, subtype = (a.content_type or "application/octet-stream").partition("/")
        msg.add_attachment(a.content, maintype=maintype or "application", subtype=subtype or "octet-stream",
                           filename=a.filename)
    return msg.as_bytes(policy=POLICY)


_HEAD = re.compile(r"(?is)<head\b.*?</head\s*>|<title\b.*?</title\s*>")
_BLANKS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def html_to_text(markup: str | None) -> str:
    """A plain-text part a person can use: the HTML's text with each link as ``text (url)``
    (an image or an empty link shows its URL alone); no ``<head>``/``<title>`` text, no scripts or
    styles, at most one blank line in a row."""
    if not markup or not markup.strip():
        return ""
    from inscriptis import get_text  # lazy: lxml + inscriptis, first message of a container only
    from inscriptis.model.config import ParserConfig

    body = _HEAD.sub("", markup)
    text = get_text(body, ParserConfig(display_links=True))
    # inscriptis writes links as "[text](url)"; mail readers expect "text (url)" / "url" alone
    text = re.sub(r"\[([^\[\]]*)\]\(([^()\s]+)\)",
                  lambda m: f"{m.group(1).strip()} ({m.group(2)})" if m.group(1).strip() and
                  m.group(1).strip() != m.group(2) else m.group(2), text)
    lines = [line.rstrip() for line in text.splitlines()]
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()


#: Stored copies (the sandbox logs): zlib-compressed, in pieces that keep each DynamoDB item well
#: under its 400 KB limit. One piece for any message without big attachments.
STORE_PIECE = 300_000


def pack(raw: bytes) -> list[bytes]:
    """``raw`` compressed and cut into ``STORE_PIECE``-byte pieces, in order."""
    import zlib

    z = zlib.compress(raw, 6)
    return [z[i:i + STORE_PIECE] for i in range(0, len(z), STORE_PIECE)] or [b""]


def unpack(pieces: Iterable[bytes]) -> bytes:
    import zlib

    return zlib.decompress(b"".join(bytes(p) for p in pieces))
