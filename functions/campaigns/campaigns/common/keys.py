"""Key layout of the audience items (one place, shared by contacts, lists, imports).

Every key starts with ``ACCT#<account_id>``, so tenancy is structural.
"""
from __future__ import annotations


def acct(a: str) -> str:
    return f"ACCT#{a}"


def list_key(a: str, list_id: str) -> tuple[str, str]:
    return acct(a), f"LIST#{list_id}"


def list_members_pk(a: str, list_id: str) -> str:
    return f"ACCT#{a}#LIST#{list_id}#M"


def contact_key(a: str, cid: str) -> tuple[str, str]:
    return f"ACCT#{a}#C#{cid}", "C"


def email_key(a: str, email_l: str) -> tuple[str, str]:
    return f"ACCT#{a}#EMAIL#{email_l}", "EMAIL"


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
