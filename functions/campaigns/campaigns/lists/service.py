"""Lists: CRUD with per-list member counters. Deleting a list keeps its contacts and
removes only the association (members are detached in the background)."""
from __future__ import annotations

from lambdakit import clock, ids
from lambdakit.errors import NotFound
from lambdakit.http import parse_model

from ..common.pages import account_page
from . import repository as repo
from .models import ListIn, ListOut, ListPatch


def public(item: dict) -> dict:
    return ListOut.model_validate({**item, "contact_count": item.get("contact_count", 0),
                                   "active_count": item.get("active", 0)}).model_dump()


def create(a: str, body: dict) -> dict:
    req: ListIn = parse_model(ListIn, body)
    now = clock.now_iso()
    item = {**req.model_dump(), "id": ids.sortable_id().lower(), "account_id": a, "contact_count": 0,
            "active": 0, "unsubscribed": 0, "bounced": 0, "created_at": now, "updated_at": now}
    repo.create(a, item)
    return public(item)


def get(a: str, list_id: str) -> dict:
    item = repo.get(a, list_id)
    if item is None:
        raise NotFound("List not found")
    return public(item)


def update(a: str, list_id: str, body: dict) -> dict:
    req: ListPatch = parse_model(ListPatch, body)
    changes = req.model_dump(exclude_none=True)
    changes["updated_at"] = clock.now_iso()
    return public(repo.update(a, list_id, changes))


def delete(a: str, list_id: str) -> dict:
    repo.delete(a, list_id)
    # Loaded on the first delete, not with the lists function: contacts brings the contact models
    # (cold start). lists sits above contacts: the allowed direction.
    from ..contacts import membership

    pending = membership.detach_list(a, list_id)
    return {"id": list_id, "deleted": True, "detach_pending": pending}


def list_page(a: str, page: str | None, limit: str | None, cursor: str | None) -> dict:
    items, meta = account_page(a, page, limit, cursor, lambda n, c: repo.page(a, n, c), lambda: repo.total(a))
    return {"lists": [public(i) for i in items], "pagination": meta}
