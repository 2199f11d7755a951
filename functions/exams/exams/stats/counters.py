"""Platform and per-tenant counters, maintained at write time (never counted by scanning).

Items: ``pk="STATS#GLOBAL"`` and ``pk=f"STATS#CLIENT#{client_id}"``, ``sk="COUNTERS"``.
Names: clients, students, client_admins, questions, tests, tests_published, attempts,
attempts_submitted, score_sum, pass_count, proctoring_events, and ``plan#<plan_id>`` for the
plan distribution (global item). Deltas may be negative.

Each counter item is write-sharded (``lambdakit.shards``, ``SHARDS`` items, read by summing):
attempts start and submit bump the global and the tenant item, and an exam's deadline submits
thousands per second. ``bump`` adds to a random shard; ``ops`` (inside a caller's transaction,
admin actions at low rates) to shard 0, so a transaction never touches one item twice.
"""
from __future__ import annotations

from collections.abc import Mapping

from lambdakit import shards
from lambdakit.ddb import Table

from ..settings import settings

SK = "COUNTERS"
GLOBAL_PK = "STATS#GLOBAL"
#: 5,000 submits in a few seconds at a deadline: 20 shards of <= 250 writes/s each.
SHARDS = shards.shard_count(5000)


def client_pk(client_id: str) -> str:
    return f"STATS#CLIENT#{client_id}"


def _table() -> Table:
    return Table(settings().table_name)


def ops(client_id: str | None, **deltas: int | float) -> list[dict]:
    """The same bump as transaction operations (to count inside a caller's transaction)."""
    deltas = {k: v for k, v in deltas.items() if v}
    if not deltas:
        return []
    out = [{"update": (GLOBAL_PK, SK), "add": dict(deltas)}]
    if client_id:
        out.append({"update": (client_pk(client_id), SK), "add": dict(deltas)})
    return out


def bump(client_id: str | None, **deltas: int | float) -> None:
    """Atomically ADD ``deltas`` to the global item and (when given) the tenant's item.
    Plan keys contain ``#``: pass them as ``bump(cid, **{"plan#free": 1})``."""
    deltas = {k: v for k, v in deltas.items() if v}
    if not deltas:
        return
    t = _table()
    shards.add(t, GLOBAL_PK, SK, deltas, SHARDS)
    if client_id:
        shards.add(t, client_pk(client_id), SK, deltas, SHARDS)


def keys(client_id: str | None) -> list[tuple[str, str]]:
    """The keys of the counters of a tenant (or the global ones): every shard."""
    return shards.keys(client_pk(client_id) if client_id else GLOBAL_PK, SK, SHARDS)


def read(client_id: str | None, *, have: Mapping[tuple[str, str], dict | None] | None = None) -> dict:
    """The counters of a tenant (or the global ones for ``None``); missing names read as absent.
    ``have``: items already read in this request by key (``None``: no such item); used only when
    it holds every shard, else the counters are read."""
    shard_keys = keys(client_id)
    if have is not None and all(k in have for k in shard_keys):
        return shards.merge([it for k in shard_keys if (it := have[k]) is not None])
    return shards.read(_table(), client_pk(client_id) if client_id else GLOBAL_PK, SK, SHARDS)


def read_with(client_id: str | None, others: list[tuple[str, str]], *,
              have: Mapping[tuple[str, str], dict | None] | None = None) -> tuple[dict, dict[tuple[str, str], dict]]:
    """``read(client_id)`` and the items ``others`` (``(pk, sk)`` keys, eventually consistent) in
    one BatchGetItem: ``(counters, {key: item found})``. ``have``: as ``read``'s (every key in it,
    or nothing of it is used)."""
    shard_keys = keys(client_id)
    if have is not None and all(k in have for k in [*shard_keys, *others]):
        found = {k: it for k in [*shard_keys, *others] if (it := have[k]) is not None}
    else:
        found = _table().get_many([*shard_keys, *others])
    return shards.merge([found.pop(k) for k in shard_keys if k in found and k not in others]), found


def merge(ops_list: list[dict]) -> list[dict]:
    """A transaction may touch an item only once: merge counter ADDs on the same key
    (dropping those that net to zero)."""
    merged: dict[tuple, dict] = {}
    for op in ops_list:
        key = op["update"]
        slot = merged.setdefault(key, {"update": key, "add": {}})
        for k, v in op["add"].items():
            slot["add"][k] = slot["add"].get(k, 0) + v
    out = []
    for op in merged.values():
        op["add"] = {k: v for k, v in op["add"].items() if v}
        if op["add"]:
            out.append(op)
    return out
