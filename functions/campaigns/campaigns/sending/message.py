"""The provider-neutral outbound message and its MIME form."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..common.headers import unsafe_header


class Unrenderable(ValueError):
    """This message cannot be built (a header-bound value holds a line break...): recording the
    recipient ``failed`` is the only outcome; retrying cannot help."""


@dataclass
class Attachment:
    filename: str
    content: bytes
    type: str = "application/octet-stream"


@dataclass
class OutboundMessage:
    account_id: str
    to: str
    subject: str
    html: str
    text: str
    from_email: str
    from_name: str = ""
    reply_to: str | None = None
    cc: list[str] = field(default_factory=list)
    bcc: list[str] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    attachments: list[Attachment] = field(default_factory=list)
    campaign_id: str | None = None
    bulk_id: str | None = None
    send_id: str | None = None
    rkey: str | None = None
    metadata: dict = field(default_factory=dict)
    #: ``<id@domain>`` when the caller fixes it (else the builder makes one on the sending domain)
    message_id: str | None = None

    def check(self) -> None:
        """Refuse header injection before any provider sees the message (the sandbox too, so
        test mode fails where real sending would)."""
        fields = {"from_name": self.from_name, "subject": self.subject, "reply_to": self.reply_to, "to": self.to,
                  "from_email": self.from_email, "cc": ",".join(self.cc), "bcc": ",".join(self.bcc)}
        fields.update({f"header {k}": f"{k}{v}" for k, v in self.headers.items()})
        bad = [k for k, v in fields.items() if unsafe_header(v)]
        if bad:
            raise Unrenderable(f"invalid_header: {', '.join(bad)} contains a line break or control character")

    def mime(self) -> bytes:
        """The bytes every provider uses (``lambdakit.mime``): SES sends them, the sandbox stores them."""
        from lambdakit import mime

        return mime.build(from_email=self.from_email, from_name=self.from_name, to=self.to, cc=self.cc,
                          reply_to=self.reply_to, subject=self.subject, text=self.text, html=self.html or None,
                          headers=self.headers, message_id=self.message_id,
                          attachments=[mime.Attachment(a.filename, a.content, a.type) for a in self.attachments])
