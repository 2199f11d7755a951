"""Data-protection erasure hook called by the contacts service on DELETE /contacts/{id}:
per-recipient send records (with their open/click markers) and sandbox outbox copies go;
webhook delivery bodies about the person are redacted."""
from __future__ import annotations

from . import repository as repo


def erase_contact(account_id: str, contact_id: str, email: str) -> int:
    if not email:
        return 0
    from ..webhooks import service as webhooks

    return repo.erase_person(account_id, email) + webhooks.erase_person(account_id, email)
