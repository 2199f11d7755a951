"""One email's bytes and their delivery (issue 30): the MIME comes from the shared builder
(``lambdakit.mime``: Date, Message-ID on the sender's domain, MIME-Version, multipart/alternative
with a text part made from the HTML, links kept, then the HTML), and both providers use the same
bytes: SES gets them as ``SendEmail`` ``Content.Raw``; the sandbox keeps them with the message
(``GET /api/admin/email-queue/{id}/raw`` answers them as ``message/rfc822``).

Internships mail is the programme's own service mail to its students, staff and leads (no list
marketing): it carries no unsubscribe footer or List-Unsubscribe header (docs/internships-engagement.md).
"""
from __future__ import annotations

from lambdakit import clock
from lambdakit.settings import effective_email_provider

from ..settings import settings
from . import repository as repo


class PermanentFailure(Exception):
    """The email can never succeed (unknown template, bad attachment): fail without retrying."""


def provider_name() -> str:
    s = settings()
    return effective_email_provider(s.email_provider, local=s.is_local)


def _attachments(attachments: list[dict]) -> list:
    from lambdakit.mime import Attachment

    out = []
    for a in attachments:
        try:
            data = repo.read_attachment(a["s3_key"])
        except ValueError as exc:  # over the size SES takes
            raise PermanentFailure(f"attachment {a.get('filename')} too large") from exc
        # an S3 failure is not the attachment's fault: retried (a transient one with backoff and
        # without using an attempt, see ``service.transient``), never a permanent failure (issue 23 rule 4)
        if data is None:
            raise PermanentFailure(f"attachment {a.get('filename')} unavailable")
        out.append(Attachment(a["filename"], data, a.get("content_type") or "application/octet-stream"))
    return out


def build_raw(sender: str, to: str, subject: str, html: str, attachments: list[dict]) -> bytes:
    """The message as it goes out (``PermanentFailure`` when it cannot be written)."""
    from email.errors import MessageError

    from lambdakit import mime

    files = _attachments(attachments)
    try:
        return mime.build(from_email=sender, to=to, subject=subject, html=html, text=mime.html_to_text(html),
                          attachments=files)
    except (ValueError, MessageError) as exc:
        raise PermanentFailure(f"unrenderable: {exc}") from None


def deliver(email: dict, subject: str, html: str) -> str:
    """Send through the configured provider; returns the provider message id."""
    sender = settings().sender_email
    attachments = email.get("attachments") or []
    raw = build_raw(sender, email["to"], subject, html, attachments)
    if provider_name() == "sandbox":
        message_id = f"sandbox-{email['id']}"
        repo.sandbox_record({"id": message_id, "email_id": email["id"], "to": email["to"], "from": sender,
                             "subject": subject, "html": html, "template": email["template"],
                             "attachments": [a["filename"] for a in attachments], "sent_at": clock.now_iso()},
                            raw)
        return message_id
    return repo.ses_send(sender=sender, to=email["to"], raw=raw, tags={"template": email["template"]})
