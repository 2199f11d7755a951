"""Bench-only workaround for moto's whole-table copies in ``TransactWriteItems``.

moto 5 (``DynamoDBBackend.transact_write_items``) takes ``copy.deepcopy`` of the *whole table*
once per item of every transaction, so that it can roll back when a condition fails. The send
worker runs one transaction per 100-recipient batch while the table grows with the audience
(contacts, list members, recipient records): a 10,000-recipient campaign then spends O(n²) time
copying tables, and the copies (moto items are cyclic-free but numerous) pile up faster than the
collector frees them — the round-2 run was OOM-killed at 24 GB after ~33 minutes.

``fast_transactions()`` keeps moto's transaction code but makes its table snapshot a no-op and
snapshots only the items the transaction names; on any failure it restores exactly those items.
The outcome is the same all-or-nothing write (``tests/campaigns/r3_send`` checks it through the
product's own transactions). Product code and the test suite keep moto unchanged; only the
benchmarks opt in.
"""
from __future__ import annotations

import copy
import types
from typing import Any, Callable


def fast_transactions() -> Callable[[], None]:
    """Patch moto in this process; returns a function that undoes the patch."""
    from moto.dynamodb import models as ddb
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import Table as MotoTable

    backend = ddb.DynamoDBBackend
    original = backend.transact_write_items
    if getattr(original, "_bench_fast", False):
        return lambda: None
    module_copy = ddb.copy  # type: ignore[attr-defined]

    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        saved: list[tuple[Any, Any, Any, Any]] = []
        for entry in transact_items:
            op = next(iter(entry.values()), None)
            if not isinstance(op, dict):
                continue
            name = op.get("TableName")
            if not name or name not in self.tables:
                continue
            table = self.tables[name]
            source = op.get("Item") if "Item" in op else op.get("Key") or {}
            if table.hash_key_attr not in source:
                continue  # moto reports the malformed op itself; nothing of it is written
            hk = DynamoType(source[table.hash_key_attr])
            rk = DynamoType(source[table.range_key_attr]) if table.range_key_attr in source else None
            if table.range_key_attr is not None and rk is None:
                continue
            saved.append((table, hk, rk, copy.deepcopy(table.get_item(hk, rk))))
        try:
            original(self, transact_items)
        except Exception:
            for table, hk, rk, before in reversed(saved):
                if before is None:
                    table.delete_item(hk, rk)
                elif rk is not None:
                    table.items[hk][rk] = before
                else:
                    table.items[hk] = before
            raise

    transact_write_items._bench_fast = True  # type: ignore[attr-defined]
    # moto's module-level ``copy`` serves the table snapshot and per-item copies (update_item):
    # only the table snapshot becomes a no-op (the table itself, restored item by item above).
    ddb.copy = types.SimpleNamespace(  # type: ignore[attr-defined]
        deepcopy=lambda obj, memo=None: obj if isinstance(obj, MotoTable) else copy.deepcopy(obj, memo),
        copy=copy.copy)
    backend.transact_write_items = transact_write_items  # type: ignore[method-assign]

    def undo() -> None:
        backend.transact_write_items = original  # type: ignore[method-assign]
        ddb.copy = module_copy  # type: ignore[attr-defined]

    return undo
