"""Campaign items.

- ``CAMP#{id}`` / ``META``: the campaign, its ``st_*`` stats counters, send progress
  (``fanout_*``, ``batches_done``), A/B counters (``ab_sent_{i}``, ``ab_opened_{i}``).
  gsi1 ``ACCT#{a}#CAMPS`` / id lists an account's campaigns (ids are ULIDs: creation order);
  gsi2 ``ACCT#{a}#CAMPS#{status}`` / id filters by status; gsi3 is the dispatcher's work
  index: ``CAMPDUE`` / ``{due_at}#{id}`` while scheduled or waiting for an A/B decision,
  ``CAMPSENDING`` / id while fanning out or sending.
- ``ACCT#{a}`` / ``CAMPCOUNT``: ``total`` and ``n_{status}`` counters for list totals.

Every status change is one transaction: the META update conditioned on the expected status,
plus the counter moves. ``InvalidState`` reports the state actually found.
"""
from __future__ import annotations

from lambdakit.cursors import decode_cursor
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, Conflict, NotFound

from ..common import keys
from ..settings import settings

STATUSES = ("draft", "scheduled", "sending", "sent", "cancelled")


class InvalidState(Conflict):
    def __init__(self, expected: list[str] | str, actual: str | None) -> None:
        exp = expected if isinstance(expected, str) else " or ".join(expected)
        super().__init__(f"Campaign is {actual or 'missing'}; this needs {exp}", code="INVALID_STATE",
                         details={"expected_state": exp, "actual_state": actual})


def table() -> Table:
    return Table(settings().table_name)


def key(cid: str) -> tuple[str, str]:
    return keys.campaign_key(cid)


def count_key(account_id: str) -> tuple[str, str]:
    return (f"ACCT#{account_id}", "CAMPCOUNT")


def create(item: dict) -> None:
    a = item["account_id"]
    full = {"pk": key(item["id"])[0], "sk": "META", "gsi1pk": f"ACCT#{a}#CAMPS", "gsi1sk": item["id"],
            "gsi2pk": f"ACCT#{a}#CAMPS#{item['status']}", "gsi2sk": item["id"], **item}
    table().transact([
        {"put": full, "condition": "attribute_not_exists(pk)"},
        {"update": count_key(a), "add": {"total": 1, f"n_{item['status']}": 1}},
    ], fresh=(0,))  # a freshly minted id: a key collision is 503 CONTENTION, never a 500


def get(cid: str, *, consistent: bool = False) -> dict | None:
    return table().get(*key(cid), consistent=consistent)


def get_with(cid: str, also: list[tuple[str, str]], *, consistent: bool = False) -> tuple[dict | None, dict]:
    """The campaign and the items at ``also`` in one BatchGetItem: ``(campaign, {key: item or None})``."""
    got = table().get_many([key(cid), *also], consistent=consistent)
    return got.get(key(cid)), {k: got.get(k) for k in also}


def get_many(cids: list[str]) -> dict[str, dict]:
    return {i["id"]: i for i in table().batch_get([key(c) for c in cids])}


class Stale(Conflict):
    """The campaign changed between the read and the write of an update (another update won)."""

    def __init__(self) -> None:
        super().__init__("The campaign changed while it was being updated; read it and try again")


#: ``update_fields(read_rev=ANY_REV)``: no check of the edit revision.
ANY_REV = -1


def update_fields(cid: str, changes: dict, *, allowed: list[str], remove: list[str] | None = None,
                  read_rev: int = ANY_REV) -> dict:
    """Write ``changes`` while the status is one of ``allowed`` and, unless ``ANY_REV``, the
    campaign's ``edit_rev`` (one more on every such write; absent = 0) is still ``read_rev``, the
    revision the caller merged its changes onto: ``Stale`` when another update came in between
    (a counter, not ``updated_at``: two updates can share a millisecond), ``InvalidState`` /
    ``NotFound`` as found."""
    cond = "#st IN (" + ", ".join(f":s{i}" for i in range(len(allowed))) + ")"
    names: dict[str, str] = {"#st": "status"}
    values: dict[str, object] = {f":s{i}": s for i, s in enumerate(allowed)}
    add: dict[str, int | float] | None = None
    if read_rev != ANY_REV:
        names["#rev"] = "edit_rev"
        cond += " AND attribute_not_exists(#rev)" if read_rev == 0 else " AND #rev = :rev"
        if read_rev:
            values[":rev"] = read_rev
        add = {"edit_rev": 1}
    try:
        return table().update(*key(cid), set=changes, add=add, remove=remove, condition=cond, must_exist=True,
                              names=names, values=values)
    except ConditionFailed as exc:
        found = exc.item if exc.item else get(cid, consistent=True)
        actual = (found or {}).get("status")
        if actual is None:
            raise NotFound("Campaign not found") from None
        if actual not in allowed:
            raise InvalidState(allowed, actual) from None
        raise Stale() from None


def transition(item: dict, allowed: list[str], to: str, *, set: dict | None = None, remove: list[str] | None = None,
               extra_condition: str | None = None, values: dict | None = None, names: dict | None = None) -> dict:
    """Move the campaign from one of ``allowed`` to ``to``, exactly once: the write is conditioned
    on the exact status read, so the status counters move from the right bucket. Returns the item
    as it was just before the move; ``InvalidState`` when its status is not allowed."""
    cid, a = item["id"], item["account_id"]
    current = item.get("status")
    for _ in range(5):
        if current not in allowed:
            raise InvalidState(allowed, current)
        cond = "#st = :cur" + (f" AND ({extra_condition})" if extra_condition else "")
        sets = {"status": to, "gsi2pk": f"ACCT#{a}#CAMPS#{to}", **(set or {})}
        ops: list[dict] = [{"update": key(cid), "set": sets, "remove": remove, "condition": cond,
                "names": {"#st": "status", **(names or {})}, "values": {":cur": current, **(values or {})}},
               {"update": count_key(a), "add": {f"n_{current}": -1, f"n_{to}": 1}}]
        try:
            table().transact(ops)
            return {**item, "status": current}
        except ConditionFailed:
            fresh = get(cid, consistent=True)
            if not fresh:
                raise NotFound("Campaign not found") from None
            if fresh.get("status") == current:  # the extra condition failed
                raise InvalidState(allowed, current) from None
            item, current = fresh, fresh.get("status")
    raise InvalidState(allowed, current)


def update_progress(cid: str, *, set: dict | None = None, add: dict | None = None, remove: list[str] | None = None,
                    condition: str | None = None, names: dict | None = None, values: dict | None = None) -> dict | None:
    """Conditional progress update; ``None`` if the condition failed (someone else did it)."""
    try:
        return table().update(*key(cid), set=set, add=add, remove=remove, condition=condition, names=names,
                              values=values, must_exist=True)
    except ConditionFailed:
        return None


def add_stats(cid: str, add: dict) -> None:
    from ..sending import repository as send_repo  # the send path's stats writer (not the read routes')

    send_repo.add_stats(key(cid), add)  # a deleted campaign is skipped


def counts(account_id: str) -> dict:
    return table().get(*count_key(account_id)) or {}


def page(account_id: str, status: str | None, limit: int, cursor: dict | None):
    pk = f"ACCT#{account_id}#CAMPS#{status}" if status else f"ACCT#{account_id}#CAMPS"
    return table().query(pk, index="gsi2" if status else "gsi1", limit=limit, cursor=cursor, forward=False)


def iter_account(account_id: str, status: str | None):
    pk = f"ACCT#{account_id}#CAMPS#{status}" if status else f"ACCT#{account_id}#CAMPS"
    return table().iter_query(pk, index="gsi2" if status else "gsi1", forward=False)


def due(now_iso: str, limit: int = 50) -> list[dict]:
    items, _ = table().query("CAMPDUE", index="gsi3", sk_lte=now_iso + "~", limit=limit)
    return items


def sending(limit: int = 100) -> list[dict]:
    items, _ = table().query("CAMPSENDING", index="gsi3", limit=limit)
    return items


__all__ = ["InvalidState", "decode_cursor"]
