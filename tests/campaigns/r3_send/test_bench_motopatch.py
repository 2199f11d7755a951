"""The send benchmark's moto workaround (bench/motopatch.py) keeps transactions all-or-nothing.

The patch replaces moto's whole-table snapshot by per-item snapshots; these tests run the
product's own transactions (lambdakit ``Table.transact`` and the send worker's batch
completion) against the patched moto and check that a cancelled transaction leaves every item
it named exactly as before, so the bench's exactly-once counters mean what they mean on AWS.
"""
from __future__ import annotations

import pytest

from lambdakit.errors import ConditionFailed


@pytest.fixture
def fast_tx(campaigns_app):
    from bench.motopatch import fast_transactions

    undo = fast_transactions()
    try:
        yield campaigns_app
    finally:
        undo()


def _table():
    from campaigns.settings import settings
    from lambdakit.ddb import Table

    return Table(settings().table_name)


def test_cancelled_transaction_restores_every_item_it_touched(fast_tx):
    t = _table()
    t.put({"pk": "R3#1", "sk": "A", "n": 1, "tags": ["a"]})
    t.put({"pk": "R3#1", "sk": "C", "n": 5})
    t.put({"pk": "R3#1", "sk": "D", "n": 7})
    with pytest.raises(ConditionFailed) as exc:
        t.transact([
            {"put": {"pk": "R3#1", "sk": "B", "n": 2}},                                # created, then undone
            {"update": ("R3#1", "A"), "add": {"n": 10}, "set": {"tags": ["b"]}},       # changed, then undone
            {"delete": ("R3#1", "D")},                                                 # deleted, then undone
            {"put": {"pk": "R3#1", "sk": "C", "n": 6}, "condition": "attribute_not_exists(pk)"},  # fails
        ])
    assert exc.value.reasons[-1] == "ConditionalCheckFailed"
    assert t.get("R3#1", "B", consistent=True) is None
    a = t.get("R3#1", "A", consistent=True)
    assert a is not None and int(a["n"]) == 1 and a["tags"] == ["a"]
    d = t.get("R3#1", "D", consistent=True)
    assert d is not None and int(d["n"]) == 7
    c = t.get("R3#1", "C", consistent=True)
    assert c is not None and int(c["n"]) == 5


def test_successful_transaction_applies_every_item_without_copying_the_table(fast_tx):
    from moto.dynamodb import models as ddb
    from moto.dynamodb.models import dynamodb_backends

    t = _table()
    t.put({"pk": "R3#2", "sk": "A", "n": 1})
    t.transact([{"put": {"pk": "R3#2", "sk": "B", "n": 2}, "condition": "attribute_not_exists(pk)"},
                {"update": ("R3#2", "A"), "add": {"n": 4}}])
    assert int(t.get("R3#2", "A", consistent=True)["n"]) == 5
    assert int(t.get("R3#2", "B", consistent=True)["n"]) == 2
    moto_table = next(iter(b for acct in dynamodb_backends.values() for b in acct.values() if t.name in b.tables)
                      ).tables[t.name]
    assert ddb.copy.deepcopy(moto_table) is moto_table  # the O(table) snapshot is gone


def test_batch_completion_counts_once_under_the_patch(fast_tx):
    """What the bench relies on: a redelivered batch's counter transaction fails on its marker and
    adds nothing (the whole transaction is undone, not just the marker)."""
    from campaigns.sending import repository as repo

    t = _table()
    owner = ("R3#OWNER", "META")
    t.put({"pk": owner[0], "sk": owner[1], "batches_done": 0, "st_sent": 0})
    kw = dict(account_id="acct-r3", owner=owner, owner_add={"batches_done": 1, "st_sent": 100},
              counts={"sent": 100, "delivered": 0, "bounced": 0, "complained": 0, "failed": 0},
              campaign_id=None, provider="ses")
    assert repo.complete_batch("b-r3", 1, **kw) is True
    assert repo.complete_batch("b-r3", 1, **kw) is False
    item = t.get(*owner, consistent=True)
    assert item is not None and int(item["batches_done"]) == 1 and int(item["st_sent"]) == 100


def test_undo_restores_moto(campaigns_app):
    from moto.dynamodb import models as ddb

    from bench.motopatch import fast_transactions

    before = ddb.DynamoDBBackend.transact_write_items
    undo = fast_transactions()
    assert ddb.DynamoDBBackend.transact_write_items is not before
    undo()
    assert ddb.DynamoDBBackend.transact_write_items is before
    assert ddb.copy.deepcopy is __import__("copy").deepcopy
