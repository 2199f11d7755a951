"""Erasure of a contact (data protection, DELETE /contacts/{id}): the contact, its uniqueness guard,
list and tag memberships go in one transaction (aggregate counters are decremented, never lost);
then its personal data held elsewhere (send records, outbox copies, webhook bodies) through
``campaigns.privacy``."""
from __future__ import annotations

from lambdakit.errors import NotFound

from ..privacy import erasure as privacy
from . import repository as repo
from .records import apply_change, retrying


def delete(a: str, cid: str) -> dict:
    """Data-protection erasure: the contact, its uniqueness guard, list and tag memberships
    go in one transaction (aggregate counters are decremented, never lost); then
    ``erase_elsewhere``."""
    gone: dict = {}

    def attempt():
        old = repo.get(a, cid, consistent=True)
        if old is None:
            raise NotFound("Contact not found")
        apply_change(a, old, None)
        gone.update(old)

    retrying(attempt)
    erase_elsewhere(a, cid, gone["email"])
    return {"id": cid, "deleted": True}


def erase_elsewhere(a: str, cid: str, email: str) -> None:
    """Erase the contact's personal data held elsewhere: per-recipient send, open and click
    records, outbox copies, webhook delivery bodies (``campaigns.privacy.erasure``)."""
    privacy.erase_person(a, email)
