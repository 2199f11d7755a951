"""List membership: the lists a contact joins must exist, a list's members in pages and its active
count (fan-out), and detaching a deleted list from its members (in the request up to a budget, the
rest as a ``detach_list`` job on the import queue, run by the import worker)."""
from __future__ import annotations

from lambdakit import clock
from lambdakit.errors import ValidationFailed

from ..common.pages import make_cursor, parse_cursor, walk
from . import jobs
from . import repository as repo
from .records import apply_change, enrich, public, retrying


def require_lists(a: str, list_ids: list[str]) -> dict[str, dict]:
    """The list items of ``list_ids``; 422 keyed ``lists`` when one is unknown."""
    found = repo.lists_by_id(a, list_ids)
    missing = [i for i in list_ids if i not in found]
    if missing:
        raise ValidationFailed("Unknown list", fields={"lists": f"Unknown list id(s): {', '.join(missing)}"})
    return found


def list_members_page(a: str, list_id: str, cursor: str | None = None, page_size: int = 100,
                      status: str | None = "active") -> tuple[list[dict], str | None]:
    start = parse_cursor(cursor, expect={"pk": repo.source_pk("list", a, list_id, None)[1]})
    items, resume, _ = walk(lambda n, c: repo.query_source("list", a, value=list_id, status=status, limit=n,
                                                           cursor=c),
                            skip=0, need=page_size, start=start, enrich=lambda xs: enrich(a, xs), budget=20)
    return [public(c) for c in items], make_cursor(resume)


def active_count(a: str, list_id: str) -> int:
    item = repo.get_list(a, list_id)
    return int((item or {}).get("active", 0))


def detach_list(a: str, list_id: str, *, budget_items: int = 25) -> bool:
    """Remove a deleted list from its members; returns True when work remains (queued)."""
    cursor = None
    done = 0
    while done < budget_items:
        members, cursor = repo.members_of_list(a, list_id, min(100, budget_items - done), cursor)
        for m in members:
            _detach_one(a, list_id, m["contact_id"], m["sk"])
            done += 1
        if not cursor:
            return False
    jobs.enqueue({"type": "detach_list", "account_id": a, "list_id": list_id})
    return True


def _detach_one(a: str, list_id: str, cid: str, member_sk: str) -> None:
    def attempt():
        old = repo.get(a, cid, consistent=True)
        if old is None or list_id not in (old.get("lists") or []):
            repo.table().delete(f"ACCT#{a}#LIST#{list_id}#M", member_sk)
            return
        new = {**old, "lists": [x for x in old["lists"] if x != list_id], "version": int(old["version"]) + 1,
               "updated_at": clock.now_iso()}
        apply_change(a, old, new)

    retrying(attempt)
