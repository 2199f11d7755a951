"""Key layout shared between packages (one place): the audience items (contacts, lists, imports,
sending's audience adapter) and the campaign item, whose ``st_*`` stats sending counts into.

Every key starts with ``ACCT#<account_id>``, so tenancy is structural.
"""
from __future__ import annotations

import hashlib

_CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def acct(a: str) -> str:
    return f"ACCT#{a}"


def campaign_key(cid: str) -> tuple[str, str]:
    """The campaign item (``campaigns.campaign.repository``): definition, status, ``st_*`` stats."""
    return f"CAMP#{cid}", "META"


def list_key(a: str, list_id: str) -> tuple[str, str]:
    return acct(a), f"LIST#{list_id}"


def list_members_pk(a: str, list_id: str) -> str:
    return f"ACCT#{a}#LIST#{list_id}#M"


def contact_key(a: str, cid: str) -> tuple[str, str]:
    return f"ACCT#{a}#C#{cid}", "C"


def home_contact_id(a: str, email_l: str) -> str:
    """The id a contact of this (normalised: trimmed, lower-cased) address gets at creation:
    the first 130 bits of ``sha256(account|email)`` in lower-case Crockford base32, 26
    characters like the ULIDs used before. The contact item's own key is then the
    uniqueness check of the address."""
    digest = hashlib.sha256(f"{a}|{email_l.strip().lower()}".encode()).digest()
    value = int.from_bytes(digest[:17], "big") >> 6  # 136 bits → 130 bits = 26 base32 digits
    return "".join(_CROCKFORD[(value >> (5 * i)) & 31] for i in reversed(range(26)))


def email_key(a: str, email_l: str) -> tuple[str, str]:
    """The "moved-email guard" of an address: exists only while the contact holding the
    address is not at ``home_contact_id(a, address)`` (its email was changed by PUT, or it
    was created while that home key was taken by a contact that had moved away)."""
    return f"ACCT#{a}#EMAIL#{email_l}", "EMAIL"


def member_sk(contact: dict) -> str:
    """Sort key of a contact's list/tag membership items: creation order, then id (a contact
    without ``seq``, from before round 3, keeps ``C#<id>``)."""
    seq = contact.get("seq")
    return f"C#{seq}#{contact['id']}" if seq else f"C#{contact['id']}"


def contact_order(contact: dict) -> str:
    """Sort key of a contact in the all/status indexes (newest first = descending)."""
    return str(contact.get("seq") or contact["id"])


def tag_members_pk(a: str, tag: str) -> str:
    return f"ACCT#{a}#TAG#{tag}"


def tag_stats_key(a: str, tag: str) -> tuple[str, str]:
    return acct(a), f"TAGSTAT#{tag}"


def search_pk(a: str) -> str:
    return f"ACCT#{a}#CSEARCH"


def stats_key(a: str, kind: str) -> tuple[str, str]:
    """Counter item of a kind (CONTACTS, LISTS, TEMPLATES)."""
    return acct(a), f"STATS#{kind}"


def all_contacts_gsi(a: str) -> str:
    return f"ACCT#{a}#CONTACTS"


def status_gsi(a: str, status: str) -> str:
    return f"ACCT#{a}#CSTATUS#{status}"
