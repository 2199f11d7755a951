"""Contact CRUD and identity: create (at the home key of the address, ``new_contact_id``; a fallback
id and a guard when that key is taken), read, update, status changes, lookup by email. Every write
goes through ``records.apply_change``. List membership, listing, erasure, import and export are
their own modules: ``membership``, ``listing``, ``erasure``, ``imports``, ``export``.

For the sending slice (all take the account id; all are tenant-safe):

- ``get_contact(a, contact_id) -> dict | None`` and ``find_by_email(a, email) -> dict | None``;
- ``list_members_page(a, list_id, cursor=None, page_size=100, status="active")`` →
  ``(contacts, next_cursor)``: the list's members in pages, for fan-out (from ``membership``);
- ``active_count(a, list_id) -> int``: active members (estimated recipients), from counters
  (from ``membership``);
- ``set_status(a, contact_id, status) -> (contact, changed)``: mark a contact
  ``unsubscribed``/``bounced`` (or ``active``) with every counter kept right; idempotent;
  ``changed`` is True for exactly one of concurrent callers.
"""
from __future__ import annotations

from lambdakit import clock, ids
from lambdakit.errors import ApiError, NotFound, ValidationFailed
from lambdakit.http import parse_model

from .. import events
from ..common.emails import email_key
from ..common.keys import home_contact_id
from . import repository as repo
from .membership import active_count, list_members_page, require_lists
from .models import STATUSES, ContactIn, ContactPatch
from .records import apply_change, email_conflict, public, retrying

__all__ = ["active_count", "create", "find_by_email", "get", "get_contact", "list_members_page", "new_contact_id",
           "set_status", "update"]


def new_contact_id(a: str, email: str) -> str:
    """The contact id a new contact of ``email`` tries first (its home key)."""
    return home_contact_id(a, email_key(email))


def _create(a: str, c: dict) -> None:
    """Write a new contact: at its home key; when that key holds a contact whose email has
    since changed, at a random id with a guard for the address (``repository`` docstring).
    Raises 409 ``CONFLICT`` when another contact holds the address."""
    e = email_key(c["email"])
    for _ in range(4):
        try:
            apply_change(a, None, c)
            return
        except repo.WriteConflict as exc:
            if exc.kind != "home":
                raise
        home = repo.get(a, c["id"], consistent=True)
        if home is not None and home.get("email_l") == e:
            raise email_conflict()
        if home is not None:
            c["id"] = ids.sortable_id().lower()  # fallback id; the guard makes the address unique
    raise ApiError("The contact changed concurrently; retry", code="CONFLICT", status=409)


def create(a: str, body: dict) -> dict:
    req: ContactIn = parse_model(ContactIn, body)
    lists = req.lists or []
    if lists:
        require_lists(a, lists)
    now = clock.now_iso()
    c = {"id": new_contact_id(a, req.email), "seq": ids.sortable_id().lower(), "account_id": a,
         "email": req.email, "first_name": req.first_name or "", "last_name": req.last_name or "",
         "phone": req.phone or "", "tags": req.tags or [], "custom_fields": req.custom_fields or {},
         "lists": lists, "status": req.status or "active", "created_at": now, "updated_at": now, "version": 1}
    _create(a, c)
    if c["status"] == "active":
        events.emit(a, "contact.subscribed", {"contact_id": c["id"], "email": c["email"], "lists": lists,
                                              "subscribed_at": now})
    return public(c)


def get_contact(a: str, cid: str) -> dict | None:
    return repo.get(a, cid)


def get(a: str, cid: str) -> dict:
    c = repo.get(a, cid)
    if c is None:
        raise NotFound("Contact not found")
    return public(c)


def find_by_email(a: str, email: str) -> dict | None:
    e = email_key(email)
    return repo.find_by_emails(a, [e]).get(e)


def update(a: str, cid: str, body: dict) -> dict:
    req: ContactPatch = parse_model(ContactPatch, body)
    changes = req.model_dump(exclude_unset=True)
    if any(v is None for k, v in changes.items() if k in ("email", "tags", "custom_fields", "lists", "status")):
        bad = next(k for k, v in changes.items() if v is None)
        raise ValidationFailed("Field cannot be null", fields={bad: "Cannot be null"})
    if changes.get("lists"):
        old = repo.get(a, cid)
        new_lists = [x for x in changes["lists"] if x not in ((old or {}).get("lists") or [])]
        if new_lists:
            require_lists(a, new_lists)
    result: dict = {}

    def attempt():
        old = repo.get(a, cid, consistent=True)
        if old is None:
            raise NotFound("Contact not found")
        new = {**old, **{k: ("" if v is None else v) for k, v in changes.items()}}
        new.update(updated_at=clock.now_iso(), version=int(old["version"]) + 1)
        apply_change(a, old, new)
        result.update(old=old, new=new)

    retrying(attempt)
    if result["old"]["status"] != "active" and result["new"]["status"] == "active":
        events.emit(a, "contact.subscribed", {"contact_id": cid, "email": result["new"]["email"],
                                              "lists": result["new"]["lists"], "subscribed_at": clock.now_iso()})
    return public(result["new"])


def set_status(a: str, cid: str, status: str) -> tuple[dict, bool]:
    """Mark a contact active/unsubscribed/bounced; counters follow. No-op when unchanged.

    Returns ``(contact, changed)``: ``changed`` is True only for the one call whose conditional
    write made the transition, so concurrent callers (two unsubscribe clicks, a complaint and
    a click) can emit ``contact.unsubscribed`` exactly once."""
    if status not in STATUSES:
        raise ValueError(status)
    out: dict = {}

    def attempt():
        old = repo.get(a, cid, consistent=True)
        if old is None:
            raise NotFound("Contact not found")
        if old["status"] == status:
            out["c"], out["changed"] = old, False
            return
        new = {**old, "status": status, "updated_at": clock.now_iso(), "version": int(old["version"]) + 1}
        apply_change(a, old, new)  # conditional on the version read: a concurrent change retries
        out["c"], out["changed"] = new, True

    retrying(attempt)
    return public(out["c"]), out["changed"]
