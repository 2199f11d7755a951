"""The email outbox: the one way any internship domain sends an email.

``enqueue`` writes the email item (``status: pending``) — idempotent on ``dedupe_key``
through a conditional put — then drops a message on the SQS email queue: for an email
that is itself the change (a password reset, an invoice sent by an admin, a reminder).
An email that REPORTS a state change (a lead, a contact, a welcome, an enrollment,
a milestone review, a project submission, a certificate) is written in that change's
own transaction instead: ``pending`` / ``pending_if_addressed`` give its writes, the
caller commits them with its own and then calls ``announce`` (issue 23 rule 4: the
email exists exactly when the change does; nothing is half-queued).

Neither talks to SES, and neither raises because of the queue: if SQS is briefly
unavailable the item stays pending and the ``process-emails`` sweep sends it.

``attachments``: ``[{"filename": str, "content_type": str, "s3_key": str}]``;
the worker reads each object from the files bucket (``INTERNSHIPS_FILES_BUCKET``).
"""
from __future__ import annotations

import logging

from lambdakit import clock, ids
from lambdakit.errors import BadRequest
from lambdakit.observability import count

from . import repository as repo
from .templates import ALL_KINDS

logger = logging.getLogger("internships.mail")


def enqueue(template: str, to: str, data: dict, *, dedupe_key: str | None = None,
            attachments: list[dict] | None = None, user_id: str | None = None) -> str:
    """Queue one email; returns its id (the existing id when ``dedupe_key`` was seen before)."""
    return enqueue_ex(template, to, data, dedupe_key=dedupe_key, attachments=attachments, user_id=user_id)[0]


def _clean_attachments(attachments: list[dict] | None) -> list[dict]:
    out = []
    for a in attachments or []:
        if not isinstance(a, dict) or not a.get("s3_key") or not a.get("filename"):
            raise BadRequest("Each attachment needs filename and s3_key")
        out.append({"filename": str(a["filename"])[:200], "s3_key": str(a["s3_key"]),
                    "content_type": str(a.get("content_type") or "application/octet-stream")})
    return out


def _new_item(template: str, to: str, data: dict, *, dedupe_key: str | None,
              attachments: list[dict] | None, user_id: str | None) -> dict:
    if template not in ALL_KINDS:
        raise BadRequest(f"Unknown email template: {template}")
    to = (to or "").strip()
    if not to or "@" not in to or len(to) > 254 or any(c in to for c in "\r\n,;<> "):
        raise BadRequest("Invalid recipient address")
    now = clock.now_iso()
    email_id = ids.sortable_id()
    created_key = f"{now}#{email_id}"
    item = {
        "pk": f"EMAILQ#{email_id}", "sk": "EMAILQ", "type": "email", "id": email_id,
        "template": template, "to": to, "data": data or {}, "status": "pending",
        "attempts": 0, "next_attempt_at": now, "created_at": now, "updated_at": now,
        "attachments": _clean_attachments(attachments),
        "gsi1pk": "EMAILS", "gsi1sk": created_key,
        "gsi2pk": "EMAILSTATUS#pending", "gsi2sk": created_key,
        "gsi3pk": f"EMAILTPL#{template}", "gsi3sk": created_key,
    }
    if dedupe_key:
        item["dedupe_key"] = dedupe_key
    if user_id:
        item["user_id"] = user_id
    return item


def enqueue_ex(template: str, to: str, data: dict, *, dedupe_key: str | None = None,
               attachments: list[dict] | None = None, user_id: str | None = None) -> tuple[str, bool]:
    """Like ``enqueue`` but also says whether a new email was created (False: dedupe hit)."""
    item = _new_item(template, to, data, dedupe_key=dedupe_key, attachments=attachments, user_id=user_id)
    try:
        repo.insert_email(item, dedupe_key)
    except repo.DuplicateEmail as dup:
        return dup.email_id or "", False
    announce(item["id"])
    return item["id"], True


def pending(template: str, to: str, data: dict, *, dedupe_key: str | None = None,
            attachments: list[dict] | None = None, user_id: str | None = None) -> tuple[str, list[dict]]:
    """The transactional outbox (issue 23, rule 4): the id and the writes of a new pending email,
    for the caller to commit in the same transaction as the business change it reports (so the
    email exists exactly when the change does, and the queue or the sweep delivers it). After the
    commit the caller calls ``announce(id)``. The writes hold a fresh email id; the dedupe guard
    (first op, when keyed) fails the whole transaction when the key was used before."""
    item = _new_item(template, to, data, dedupe_key=dedupe_key, attachments=attachments, user_id=user_id)
    return item["id"], repo.email_ops(item, dedupe_key)


def pending_if_addressed(template: str, to: str | None, data: dict, *, dedupe_key: str | None = None,
                         attachments: list[dict] | None = None,
                         user_id: str | None = None) -> tuple[str | None, list[dict]]:
    """``pending`` for an email that must never refuse the business change it reports (a milestone
    review, a project submission, a certificate): no address, or an address the outbox refuses,
    gives no email (logged) and no writes: ``(None, [])``."""
    if not to:
        return None, []
    try:
        return pending(template, to, data, dedupe_key=dedupe_key, attachments=attachments, user_id=user_id)
    except BadRequest:
        logger.error("no %s email: invalid recipient address", template, extra={"user_id": user_id})
        return None, []


def fresh_puts(mail_ops: list[dict]) -> tuple[int, ...]:
    """Indexes, in ``mail_ops`` (the writes ``pending`` gave), of the email item's put: a key minted
    for this write, so a condition failure on it alone is an id collision (``Table.transact(fresh=...)``:
    503), never a domain conflict. The caller shifts them by where it appended ``mail_ops``."""
    return tuple(i for i, op in enumerate(mail_ops) if "put" in op and str(op["put"].get("pk", "")).startswith("EMAILQ#"))


def queued(dedupe_key: str) -> bool:
    """True when an email holds ``dedupe_key`` (read consistently)."""
    return repo.dedupe_owner(dedupe_key) is not None


def announce(email_id: str | None) -> None:
    """Count a committed email and drop its message on the queue; never raises because of the queue
    (the email stays pending and the ``process-emails`` sweep sends it). ``None`` (no email): nothing."""
    if not email_id:
        return
    count("EmailsQueued")
    try:
        repo.send_work(email_id)
    except Exception:  # noqa: BLE001 - never block the caller; the sweep picks it up
        logger.warning("email queue unavailable; email left pending for the sweep", extra={"email_id": email_id})
