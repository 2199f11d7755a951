"""Write-sharded counters: one logical counter spread over N items (issue #21 part 2).

DynamoDB serves about 1,000 write units per second per partition, so one counter item written by
every request of a surge has a ceiling. A sharded counter adds to one of ``N`` items picked at
random and is read by summing them:

- shard 0 is the counter's own key ``(pk, sk)`` (data written before sharding stays counted, and a
  counter with ``N = 1`` is exactly the old single item);
- shard ``i > 0`` is ``(f"{pk}#S{i}", sk)``: a different *partition key*, so the shards land on
  different partitions (items sharing a partition key may share a partition).

Sums are exact: every ``ADD`` lands on exactly one shard (atomically, possibly inside the caller's
transaction), and a read sums all ``N`` shards with one ``BatchGetItem`` (cost independent of the
data size). ``N`` must never shrink for an existing counter (shards above the new ``N`` would stop
being read); choose it from the expected peak write rate with :func:`shard_count`.

Rate limits need a hard cap across shards: see ``lambdakit.ratelimit`` (per-shard budgets).
"""
from __future__ import annotations

import math
import secrets
from typing import Any

from .ddb import Table

#: Design load per shard: a quarter of the per-partition ceiling (headroom for bursts and for the
#: other items that share a partition).
PER_SHARD_WRITES = 250.0
MAX_SHARDS = 32


def shard_count(expected_writes_per_s: float, *, per_shard: float | None = None) -> int:
    """Shards needed so each takes at most ``per_shard`` (default ``PER_SHARD_WRITES``) writes/s
    at ``expected_writes_per_s``, at most ``MAX_SHARDS``."""
    return max(1, min(MAX_SHARDS, math.ceil(expected_writes_per_s / (per_shard or PER_SHARD_WRITES))))


def shard_key(pk: str, sk: str, shard: int) -> tuple[str, str]:
    return (pk, sk) if shard == 0 else (f"{pk}#S{shard}", sk)


def keys(pk: str, sk: str, shards: int) -> list[tuple[str, str]]:
    return [shard_key(pk, sk, i) for i in range(max(1, shards))]


def pick(shards: int) -> int:
    return secrets.randbelow(shards) if shards > 1 else 0


def add_op(pk: str, sk: str, deltas: dict[str, int | float], shards: int, *, set: dict[str, Any] | None = None,
           shard: int | None = None) -> dict:
    """A ``Table.transact`` update op adding ``deltas`` to one (random) shard."""
    op: dict[str, Any] = {"update": shard_key(pk, sk, pick(shards) if shard is None else shard), "add": dict(deltas)}
    if set:
        op["set"] = dict(set)
    return op


def add(table: Table, pk: str, sk: str, deltas: dict[str, int | float], shards: int, *,
        set: dict[str, Any] | None = None) -> None:
    """Atomically ADD ``deltas`` to one random shard (plain ADDs never conflict)."""
    if not deltas:
        return
    key = shard_key(pk, sk, pick(shards))
    table.update(*key, add=dict(deltas), set=set, return_values="NONE")


def merge(items: list[dict]) -> dict:
    """Sum the numeric attributes of shard items; other attributes come from the first that has them."""
    out: dict[str, Any] = {}
    for item in items:
        for k, v in item.items():
            if k in ("pk", "sk"):
                continue
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out[k] = out.get(k, 0) + v
            else:
                out.setdefault(k, v)
    return out


def read(table: Table, pk: str, sk: str, shards: int, *, consistent: bool = False) -> dict:
    """The counter's totals: every shard summed (one GetItem when ``shards == 1``)."""
    if shards <= 1:
        item = table.get(pk, sk, consistent=consistent) or {}
        return {k: v for k, v in item.items() if k not in ("pk", "sk")}
    return merge(table.batch_get(keys(pk, sk, shards), consistent=consistent))
