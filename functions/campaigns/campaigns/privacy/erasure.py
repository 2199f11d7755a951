"""Data-protection erasure of a person outside the contact item, run by the contact's erasure
(DELETE /contacts/{id}): per-recipient send records (with their open/click markers) and sandbox
outbox copies go (``repository``); webhook delivery bodies about the person are redacted
(``campaigns.webhooks.dispatch.erase_person``)."""
from __future__ import annotations

from ..webhooks import dispatch as webhooks
from . import repository as repo


def erase_person(account_id: str, email: str) -> int:
    if not email:
        return 0
    return repo.erase_person(account_id, email) + webhooks.erase_person(account_id, email)
