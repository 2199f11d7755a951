"""The provider-neutral outbound message and its MIME form."""
from __future__ import annotations

from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formataddr, make_msgid

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
        msg = EmailMessage()
        msg["From"] = formataddr((self.from_name, self.from_email)) if self.from_name else self.from_email
        msg["To"] = self.to
        if self.cc:
            msg["Cc"] = ", ".join(self.cc)
        if self.reply_to:
            msg["Reply-To"] = self.reply_to
        msg["Subject"] = self.subject
        msg["Message-ID"] = make_msgid(domain=self.from_email.rpartition("@")[2] or None)
        for k, v in self.headers.items():
            msg[k] = v
        msg.set_content(self.text or " ")
        if self.html:
            msg.add_alternative(self.html, subtype="html")
        for a in self.attachments:
            maintype, _, subtype = (a.type or "application/octet-stream").partition("/")
            msg.add_attachment(a.content, maintype=maintype or "application", subtype=subtype or "octet-stream",
                               filename=a.filename)
        return msg.as_bytes()
