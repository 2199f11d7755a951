"""Data-protection erasure hook called by the contacts service on DELETE /contacts/{id}:
per-recipient send records (with their open/click markers) and sandbox outbox copies go."""
from __future__ import annotations

from . import repository as repo


def erase_contact(account_id: str, contact_id: str, email: str) -> int:
    return repo.erase_person(account_id, email) if email else 0
