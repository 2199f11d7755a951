"""Contact records: the public view of a contact, the resolution of index items to their contacts,
and the one way every change is written: one transaction for ``old → new`` (record, uniqueness
guards, list and tag memberships, counters: ``repository.change_ops``) with its conflicts mapped to
API errors, retried when it lost a race. Creating, updating, detaching a deleted list, erasing and
merging an imported row all write through ``apply_change``."""
from __future__ import annotations

from lambdakit.errors import ApiError, Conflict, ValidationFailed

from . import repository as repo
from .fields import ContactOut


def public(c: dict) -> dict:
    return ContactOut.model_validate(c).model_dump()


def _live_lists(a: str, contact: dict | None) -> set[str]:
    lids = list((contact or {}).get("lists") or [])
    return set(repo.lists_by_id(a, lids)) if lids else set()


def email_conflict() -> Conflict:
    return Conflict("A contact with this email already exists",
                    details={"email": "A contact with this email already exists"})


def apply_change(a: str, old: dict | None, new: dict | None) -> None:
    """One transaction for ``old → new``; a failed create at the home key (``WriteConflict``
    ``home``) is left to the caller (``service._create``)."""
    ops = repo.change_ops(a, old, new, live_lists=_live_lists(a, old) if old else None)
    try:
        repo.write(ops)
    except repo.WriteConflict as exc:
        if exc.kind == "email":
            raise email_conflict() from None
        if exc.kind == "home":
            raise
        if exc.kind == "list":
            raise ValidationFailed("Unknown list", fields={"lists": "One of the lists does not exist"}) from None
        if exc.kind == "too_many":
            raise ValidationFailed("Too many list and tag changes at once",
                                   fields={"lists": "Change fewer lists and tags in one request"}) from None
        raise


def retrying(fn, attempts: int = 4):
    for i in range(attempts):
        try:
            return fn()
        except repo.WriteConflict as exc:
            if exc.kind != "version" or i == attempts - 1:
                if exc.kind == "version":
                    raise ApiError("The contact changed concurrently; retry", code="CONFLICT", status=409) from None
                raise


def enrich(a: str, items: list[dict]) -> list[dict | None]:
    """Index items → their contacts (one BatchGetItem); contact items pass through."""
    need = [i["contact_id"] for i in items if i.get("sk") != "C"]
    found = repo.contacts_by_id(a, need)
    return [i if i.get("sk") == "C" else found.get(i["contact_id"]) for i in items]
