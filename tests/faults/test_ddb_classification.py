"""Issue 23, rule 1: only a condition failure is a ``ConditionFailed``.

Faults come from ``tests/faults/inject.py`` (botocore hooks on the real clients talking to
moto); each case reads state back.
"""
from __future__ import annotations

import uuid
from decimal import Decimal

import pytest

from lambdakit import ddb
from lambdakit.errors import ConditionFailed, Contention, StorageRefused, Throttled

from .inject import inject


@pytest.fixture
def table(internships_app):
    from internships.settings import settings

    return ddb.Table(settings().table_name)


def _pk() -> str:
    return f"F#{uuid.uuid4()}"


def test_a_real_condition_failure_is_condition_failed(table):
    pk = _pk()
    table.put({"pk": pk, "sk": "I"})
    with pytest.raises(ConditionFailed):
        table.put_new({"pk": pk, "sk": "I"})


@pytest.mark.parametrize("code,expected", [
    ("ProvisionedThroughputExceededException", Throttled),
    ("ThrottlingException", Throttled),
    ("TransactionConflictException", Contention),
])
def test_capacity_errors_are_503_not_condition_failures(table, code, expected):
    pk = _pk()
    with inject("PutItem", code) as f, pytest.raises(expected) as err:
        table.put_new({"pk": pk, "sk": "I"})
    assert f.fired == 1
    assert not isinstance(err.value, ConditionFailed)
    assert err.value.status == 503 and err.value.headers.get("Retry-After") == "1"
    assert table.get(pk, "I", consistent=True) is None


def test_a_refused_value_is_a_4xx_not_a_condition_failure(table):
    pk = _pk()
    with inject("UpdateItem", "ValidationException"), pytest.raises(StorageRefused) as err:
        table.update(pk, "I", set={"v": 1}, condition="attribute_not_exists(pk)")
    assert err.value.status == 413  # the injected message is the 400 KB item-size refusal
    assert table.get(pk, "I", consistent=True) is None


def test_too_many_digits_is_refused_before_the_call(table):
    with pytest.raises(StorageRefused) as err:
        table.put({"pk": _pk(), "sk": "I", "n": Decimal("1." + "1" * 40)})
    assert err.value.status == 422


def test_internal_server_error_is_not_a_condition_failure(table):
    from botocore.exceptions import ClientError

    with inject("PutItem", "InternalServerError"), pytest.raises(ClientError) as err:
        table.put_new({"pk": _pk(), "sk": "I"})
    assert not isinstance(err.value, ConditionFailed)
    assert err.value.response["Error"]["Code"] == "InternalServerError"


def test_a_transaction_refused_for_a_value_is_storage_refused(table):
    pk = _pk()
    ops = [{"put": {"pk": pk, "sk": "A"}, "condition": "attribute_not_exists(pk)"},
           {"update": (pk, "B"), "set": {"v": 1}}]
    with inject("TransactWriteItems", "cancel:ValidationError", reason_at=1), \
            pytest.raises(StorageRefused) as err:
        table.transact(ops)
    assert not isinstance(err.value, ConditionFailed)
    assert table.get(pk, "A", consistent=True) is None


def test_a_condition_failure_says_which_operation_failed(table):
    pk = _pk()
    table.put({"pk": pk, "sk": "B"})
    ops = [{"put": {"pk": pk, "sk": "A"}, "condition": "attribute_not_exists(pk)"},
           {"put": {"pk": pk, "sk": "B"}, "condition": "attribute_not_exists(pk)"}]
    with pytest.raises(ConditionFailed) as err:
        table.transact(ops)
    assert err.value.failed_ops == [1]


def test_an_ambiguous_transaction_is_applied_once(table):
    """The transaction is applied, its answer lost, botocore resends it with the same
    ClientRequestToken: DynamoDB (and the emulator) treat the resend as the same request."""
    pk = _pk()
    ops = [{"put": {"pk": pk, "sk": "A"}, "condition": "attribute_not_exists(pk)"},
           {"update": (pk, "N"), "add": {"n": 1}}]
    with inject("TransactWriteItems", "ambiguous") as f:
        table.transact(ops)
    assert f.fired == 1
    assert table.get(pk, "N", consistent=True)["n"] == 1


def test_an_ambiguous_conditional_put_reads_as_condition_failed(table):
    """Why rule 2 exists: a single conditional write applied once, then resent, fails its own
    condition. Callers must confirm the cause by reading state back."""
    pk = _pk()
    with inject("PutItem", "ambiguous"), pytest.raises(ConditionFailed):
        table.put_new({"pk": pk, "sk": "I", "v": 1})
    assert table.get(pk, "I", consistent=True) == {"pk": pk, "sk": "I", "v": 1}


def test_a_fresh_key_insert_confirms_its_own_ambiguous_write(table):
    """Rule 2: with ``fresh_key`` the condition failure is confirmed by reading back: the item
    found is this write (applied, answer lost, resent), so the insert succeeds once."""
    pk = _pk()
    with inject("PutItem", "ambiguous") as f:
        table.put_new({"pk": pk, "sk": "I", "v": 1.5}, fresh_key=True)
    assert f.fired == 1
    assert table.get(pk, "I", consistent=True) == {"pk": pk, "sk": "I", "v": 1.5}


def test_a_fresh_key_insert_over_a_different_item_is_a_retryable_collision(table):
    """Rule 2: under a freshly minted id, a taken key is an id collision, not a domain conflict:
    503 ``CONTENTION`` with Retry-After (the client's retry mints a new id), never a 409 or a 500;
    the item found is untouched. The same for a transaction's fresh put."""
    pk = _pk()
    table.put({"pk": pk, "sk": "I", "v": 1})
    with pytest.raises(Contention) as err:
        table.put_new({"pk": pk, "sk": "I", "v": 2}, fresh_key=True)
    assert err.value.status == 503 and err.value.headers.get("Retry-After")
    with pytest.raises(Contention):
        table.transact([{"put": {"pk": pk, "sk": "I", "v": 3}, "condition": "attribute_not_exists(pk)"},
                        {"update": (pk, "COUNT"), "add": {"n": 1}}], fresh=(0,))
    assert table.get(pk, "I", consistent=True)["v"] == 1 and table.get(pk, "COUNT") is None
    with pytest.raises(ConditionFailed):  # without ``fresh`` a taken key stays a condition failure
        table.put_new({"pk": pk, "sk": "I", "v": 2})


def test_a_transaction_over_dynamodbs_100_items_is_refused_before_the_call(table):
    from .inject import count_calls

    pk = _pk()
    ops = [{"put": {"pk": pk, "sk": f"I{i}"}} for i in range(ddb.MAX_TRANSACT_ITEMS + 1)]
    with count_calls("TransactWriteItems") as f, pytest.raises(StorageRefused) as err:
        table.transact(ops)
    assert f.calls == 0
    assert err.value.status == 413 and not isinstance(err.value, ConditionFailed)
    assert table.get(pk, "I0", consistent=True) is None
