"""Read/write access to the audience slice's contacts, lists and templates (one adapter, so the
sending side depends on their key design in one place: ``campaigns.common.keys``).

Contacts: ``ACCT#{a}#C#{id}`` / ``C``; email lookup through ``contacts.repository.find_by_emails``;
list members ``ACCT#{a}#LIST#{id}#M`` / ``C#{seq}#{contact_id}`` (``contact_id`` attribute); list counters on ``ACCT#{a}`` /
``LIST#{id}`` (``active``, ``unsubscribed``, ``bounced``, ``contact_count``).
Status changes go through the contacts service when it offers them (it keeps the counters).
"""
from __future__ import annotations

from lambdakit.ddb import Table, pack_key, unpack_key
from lambdakit.errors import NotFound

from ..common import keys
from ..contacts import repository as contacts_repo
from ..settings import settings


def table() -> Table:
    return Table(settings().table_name)


def list_key(account_id: str, list_id: str) -> tuple[str, str]:
    return keys.list_key(account_id, list_id)


def template_key(account_id: str, template_id: str) -> tuple[str, str]:
    return keys.acct(account_id), f"TPL#{template_id}"


def _read(key: tuple[str, str], have: dict | None) -> dict | None:
    """The item at ``key``: from ``have`` (items read earlier with another read, ``None`` when it was
    absent) when it holds the key, else one GetItem."""
    if have is not None and key in have:
        return have[key]
    return table().get(*key)


def get_list(account_id: str, list_id: str, have: dict | None = None) -> dict | None:
    return _read(list_key(account_id, list_id), have)


def active_count(account_id: str, list_id: str, have: dict | None = None) -> int:
    item = get_list(account_id, list_id, have) or {}
    return int(item.get("active", item.get("contact_count", 0)) or 0)


def page_members(account_id: str, list_id: str, cursor: str | None, limit: int) -> tuple[list[str], str | None]:
    """Contact ids of one page of list members (inactive members are dropped when the member item
    carries a status; the send worker re-checks every contact's status before sending)."""
    items, last = table().query(keys.list_members_pk(account_id, list_id), limit=limit,
                                cursor=unpack_key(cursor))  # the service's own fan-out position, never a client's
    ids_ = []
    for i in items:
        if i.get("status", "active") != "active":
            continue
        cid = i.get("contact_id") or str(i["sk"]).partition("#")[2]
        if cid:
            ids_.append(cid)
    return ids_, pack_key(last)


def get_contacts(account_id: str, contact_ids: list[str]) -> dict[str, dict]:
    items = table().batch_get([keys.contact_key(account_id, c) for c in contact_ids])
    return {i["id"]: i for i in items if i.get("id")}


def find_by_emails(account_id: str, emails: list[str]) -> dict[str, dict]:
    """Contacts of these addresses (lower-cased keys), for suppression of non-campaign sends
    (the contacts repository resolves addresses: home keys and moved-email guards)."""
    return contacts_repo.find_by_emails(account_id, list(dict.fromkeys(e.strip().lower() for e in emails if e)))


def find_by_email(account_id: str, email: str) -> dict | None:
    return find_by_emails(account_id, [email]).get(email.strip().lower())


def set_status(account_id: str, contact_id: str, status: str, reason: str) -> bool:
    """Mark a contact ``unsubscribed`` or ``bounced`` through the contacts service (which keeps
    the list and status counters); True when it changed, so callers emit events once."""
    # Loaded on first use, not with every function that reads the audience: the contacts service
    # brings the contact models (cold start). sending sits above contacts: the allowed direction.
    from ..contacts import service as contacts

    try:
        _, changed = contacts.set_status(account_id, contact_id, status)
    except NotFound:  # erased in between
        return False
    return changed


def create_unsubscribed(account_id: str, email: str) -> str | None:
    """A new contact for ``email`` in status ``unsubscribed`` (the unsubscribe link of a single or
    bulk send to an address that was no contact: the contact is what suppresses later sends).
    Its id, the existing contact's when one appeared meanwhile, or ``None`` when refused."""
    from lambdakit.errors import ApiError

    from ..contacts import service as contacts

    try:
        return str(contacts.create(account_id, {"email": email, "status": "unsubscribed"})["id"])
    except ApiError:
        found = find_by_email(account_id, email)
        return found["id"] if found else None


def get_template(account_id: str, template_id: str, have: dict | None = None) -> dict | None:
    """Templates item ``ACCT#{a}`` / ``TPL#{id}`` (subject, content)."""
    return _read(template_key(account_id, template_id), have)
