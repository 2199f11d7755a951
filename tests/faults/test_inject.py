"""The injector itself (issue 23): each fault kind the suite schedules is really injected, at
the calls its selector names, with DynamoDB's answer shape. If a selector stops seeing the
calls it targets (as when ``before-call`` hooks read API parameters that the serialised request
does not have), these tests fail instead of the route cases silently running no case."""
from __future__ import annotations

import uuid

import pytest

from lambdakit import ddb
from lambdakit.errors import ConditionFailed, Contention, StorageRefused, Throttled

from .driver import FAULTS, fault_times
from .inject import count_calls, inject


@pytest.fixture
def table(internships_app):
    from internships.settings import settings

    return ddb.Table(settings().table_name)


def _pk() -> str:
    return f"F#{uuid.uuid4()}"


def _three_ops(pk: str) -> list[dict]:
    """A transaction whose middle operation (only) carries a condition."""
    return [{"put": {"pk": pk, "sk": "A"}},
            {"put": {"pk": pk, "sk": "B"}, "condition": "attribute_not_exists(pk)"},
            {"update": (pk, "N"), "add": {"n": 1}}]


def _writes(table, pk: str) -> None:
    """Three single writes (the 2nd and 3rd conditioned) and two transactions (the 2nd conditioned)."""
    table.put({"pk": pk, "sk": "X"})
    table.put_new({"pk": pk, "sk": "Y"})
    table.update(pk, "X", set={"v": 1}, must_exist=True)
    table.transact([{"put": {"pk": pk, "sk": "T1"}}, {"update": (pk, "N"), "add": {"n": 1}}])
    table.transact(_three_ops(pk))


def test_selectors_count_the_calls_they_name(table):
    pk = _pk()
    with count_calls("*") as all_, count_calls("write") as w, count_calls("cond") as c, \
            count_calls("condtx") as ct, count_calls("TransactWriteItems") as tx, \
            count_calls("write", item=lambda t, p, s: p == pk and s == "N") as n:
        _writes(table, pk)
    assert (w.calls, c.calls, ct.calls, tx.calls, n.calls) == (5, 2, 1, 2, 2)
    assert all_.calls >= 5


def test_a_condition_failure_is_injected_at_each_conditioned_single_write(table):
    pk = _pk()
    table.put({"pk": pk, "sk": "X", "v": 0})
    for at, call in ((1, lambda: table.put_new({"pk": pk, "sk": "Y"})),
                     (2, lambda: table.update(pk, "X", set={"v": 2}, must_exist=True))):
        with inject("cond", "ConditionalCheckFailedException", at=at) as f, pytest.raises(ConditionFailed) as err:
            if at == 2:
                table.put_new({"pk": pk, "sk": "Z"})  # the 1st conditioned write goes through
            call()
        assert f.fired == 1 and f.where.startswith(("PutItem", "UpdateItem"))
    # an update that asks for ALL_OLD gets the item as it stands, as from DynamoDB
    assert err.value.item == {"pk": pk, "sk": "X", "v": 0}
    assert table.get(pk, "X", consistent=True)["v"] == 0


def test_a_cancelled_transaction_carries_one_reason_per_operation(table):
    pk = _pk()
    with inject("condtx", "cancel:ConditionalCheckFailed") as f, pytest.raises(ConditionFailed) as err:
        table.transact(_three_ops(pk))
    assert f.fired == 1
    assert f.reasons == ["None", "ConditionalCheckFailed", "None"]  # on the conditioned operation
    assert err.value.failed_ops == [1]
    with inject("TransactWriteItems", "cancel:ValidationError", reason_at=2) as f, pytest.raises(StorageRefused):
        table.transact(_three_ops(pk))
    assert f.reasons == ["None", "None", "ValidationError"]
    assert table.get(pk, "B", consistent=True) is None


def test_item_names_the_operation_at_fault(table):
    pk = _pk()
    with inject("write", "refused", item=lambda t, p, s: s == "N") as f, pytest.raises(StorageRefused):
        table.transact(_three_ops(pk))
    assert f.reasons == ["None", "None", "ValidationError"]
    with inject("write", "refused", item=lambda t, p, s: s == "N") as f:
        table.put({"pk": pk, "sk": "A"})  # not the item: goes through
        with pytest.raises(StorageRefused):
            table.update(pk, "N", add={"n": 1})
    assert f.fired == 1 and f.calls == 1


EXPECTED = {
    "ConditionalCheckFailedException": ConditionFailed,
    "cancel:ConditionalCheckFailed": ConditionFailed,
    "cancel:ValidationError": StorageRefused,
    "cancel:TransactionConflict": Contention,
    "cancel:ThrottlingError": Contention,
    "ProvisionedThroughputExceededException": Throttled,
    "InternalServerError": Exception,
    "ambiguous": None,
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_fault_kind_is_injected_at_the_first_a_middle_and_the_last_call(table, fault):
    """For each fault of the suite: the calls its selector counts in a clean run are the calls
    it fires on; a cancellation names one operation of the transaction."""
    op = FAULTS[fault][0]
    with count_calls(op) as c:
        pk = _pk()
        _writes(table, pk)
        _writes(table, pk + "b")
    assert c.calls >= 2, f"{op}: no call to inject {fault} into"
    for where, at in (("first", 1), ("middle", (c.calls + 1) // 2), ("last", c.calls)):
        pk = _pk()
        with inject(op, fault, at=at, times=fault_times(fault)) as f:
            try:
                _writes(table, pk)
                _writes(table, pk + "b")
                raised = None
            except Exception as exc:  # noqa: BLE001 - compared below
                raised = exc
        assert f.fired == fault_times(fault), f"{fault} at {where} ({at}/{c.calls} {op} calls) was never injected"
        if EXPECTED[fault] is None:
            assert raised is None or isinstance(raised, ConditionFailed)  # a resent conditional write
        else:
            assert isinstance(raised, EXPECTED[fault]), (where, repr(raised))
        if fault.startswith("cancel:"):
            assert f.reasons and f.reasons.count(fault.split(":")[1]) == 1 and len(f.reasons) >= 2, f.reasons
