"""Queue a student email through the ENGAGE outbox without ever failing the caller's business
operation (the write already committed; a dedupe key makes retries safe)."""
from __future__ import annotations

import logging

logger = logging.getLogger("internships.notify")


def send(template: str, to: str | None, data: dict, *, dedupe_key: str | None = None,
         attachments: list[dict] | None = None, user_id: str | None = None) -> str | None:
    if not to:
        return None
    try:
        from .mail.outbox import enqueue

        return enqueue(template, to, data, dedupe_key=dedupe_key, attachments=attachments, user_id=user_id)
    except Exception:  # noqa: BLE001 - an email must never undo a committed state change
        logger.warning("could not queue email", extra={"template": template, "dedupe_key": dedupe_key})
        return None


def dashboard_url() -> str:
    from .settings import settings

    s = settings()
    return (s.frontend_url or s.public_base_url).rstrip("/") + "/dashboard"
