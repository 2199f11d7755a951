"""Issue 23 rule 3: DynamoDB's size limits are checked before a write is sent.

An item over 400 KB, a change (update values) over 400 KB, a transaction over 4 MB or a batch
holding one oversized item is refused with 413 ``PAYLOAD_TOO_LARGE`` naming the largest field,
and nothing is written: no DynamoDB write call is made at all (counted with a botocore hook).
"""
from __future__ import annotations

import contextlib
import uuid
from typing import Iterator

import pytest

from lambdakit import ddb
from lambdakit.ddbcalls import MAX_ITEM_BYTES, MAX_TRANSACT_BYTES, size_of
from lambdakit.errors import StorageRefused
from tests.faults.inject import count_calls

from .conftest import assert_error


@contextlib.contextmanager
def write_calls() -> Iterator[list[str]]:
    """The DynamoDB write calls made meanwhile, on every client (the resource's and the low-level
    one), counted by the fault suite's botocore hook without failing any."""
    seen: list[str] = []
    with count_calls("write") as f:
        yield seen
    seen.extend(["write"] * f.calls)


@pytest.fixture
def table(internships_app):
    from internships.settings import settings

    return ddb.Table(settings().table_name)


def test_sizes_follow_dynamodbs_rules():
    assert size_of("é" * 10) == 20 and size_of(None) == 1 and size_of(True) == 1
    assert size_of(12345678901234567890) <= 21
    assert size_of({"ab": "xyz"}) == 3 + 2 + 3 + 1
    assert size_of(["a", "b"]) == 3 + 2 + 2


def test_an_item_over_400_kb_is_refused_before_the_call(table):
    pk = f"LIM#{uuid.uuid4()}"
    big = {"pk": pk, "sk": "A", "small": "x", "content": "é" * (MAX_ITEM_BYTES // 2 + 10)}
    with write_calls() as seen, pytest.raises(StorageRefused) as exc:
        table.put(big)
    assert exc.value.status == 413 and exc.value.code == "PAYLOAD_TOO_LARGE"
    assert exc.value.details["field"] == "content" and "content" in exc.value.message
    assert seen == [] and table.get(pk, "A") is None
    table.put({**big, "content": "é" * 190_000})  # 380 KB: stored
    assert table.get(pk, "A", consistent=True)["small"] == "x"


def test_an_update_whose_values_exceed_400_kb_is_refused(table):
    pk = f"LIM#{uuid.uuid4()}"
    table.put({"pk": pk, "sk": "A", "n": 1})
    with write_calls() as seen, pytest.raises(StorageRefused) as exc:
        table.update(pk, "A", set={"notes": "x" * (MAX_ITEM_BYTES + 1)})
    assert exc.value.status == 413 and exc.value.details["field"] == "notes" and seen == []
    assert "notes" not in table.get(pk, "A", consistent=True)


def test_a_transaction_over_4_mb_is_refused_whole(table):
    pk = f"LIM#{uuid.uuid4()}"
    chunk = "x" * (390 * 1024)
    ops = [{"put": {"pk": pk, "sk": f"I{i}", "blob": chunk}} for i in range(11)]
    assert sum(size_of(op["put"]) for op in ops) > MAX_TRANSACT_BYTES
    with write_calls() as seen, pytest.raises(StorageRefused) as exc:
        table.transact(ops)
    assert exc.value.status == 413 and exc.value.details["limit_bytes"] == MAX_TRANSACT_BYTES
    assert seen == [] and table.query(pk)[0] == []


def test_a_batch_with_one_oversized_item_writes_nothing(table):
    pk = f"LIM#{uuid.uuid4()}"
    items = [{"pk": pk, "sk": f"I{i:02d}", "v": i} for i in range(30)]
    items[27]["blob"] = "x" * (MAX_ITEM_BYTES + 1)
    with write_calls() as seen, pytest.raises(StorageRefused):
        table.batch_write(puts=items)
    assert seen == [] and table.query(pk)[0] == []


def test_a_route_answers_413_naming_the_field(camp):
    """campaigns ``POST /templates``: 300,000 'é' fit the model's character bound but are 600 KB
    in UTF-8: a clean 413 in the service's format, and no template is created."""
    before = camp.get("/templates").json()["data"]
    body = {"name": f"big-{uuid.uuid4().hex[:6]}", "subject": "s", "content": "é" * 300_000}
    r = camp.post("/templates", json=body)
    err = assert_error("campaigns", r, 413)
    assert "content" in r.text, err
    assert len(camp.get("/templates").json()["data"]) == len(before)
