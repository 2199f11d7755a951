"""The sweep's due fold entries (``attempts.repository.folds_due``) are filtered in Python instead of
with a filter expression (first chosen in issue 21, when the condition builders imported the boto3
package; kept because moto cannot evaluate ``at <= cutoff`` over a non-numeric ``at``). The same entries, in the same order, as DynamoDB's ``at <= cutoff`` filter
returns them, also across pages and with a limit; a sweep tick builds no filter expression and
imports nothing of boto3."""
from __future__ import annotations

from bench.callcount import count_calls
from tests.exams.delivery.test_cold_imports import imports_requested


def _seed(repo, shard: int, n: int, *, string_at: bool = False) -> str:
    """``n`` fold entries on one shard: due ones, later ones and ones without ``at``, padded so the
    partition spans several pages; ``string_at``: also entries whose ``at`` is a string (moto cannot
    evaluate a filter on those; DynamoDB's comparison of different types is false)."""
    pk = f"FOLDDUE#{shard}"
    puts = []
    for i in range(n):
        item = {"pk": pk, "sk": f"att-{i:03d}", "test_id": "t", "pad": "x" * 60_000}  # ~17 a 1 MB page
        if i % 7 == 5 and string_at:
            item["at"] = "100"
        elif i % 7 != 3:  # i % 7 == 3: no ``at`` at all
            item["at"] = 100 + (i % 4) * 50  # 100, 150, 200, 250
        puts.append(item)
    repo.table().batch_write(puts)
    return pk


def test_due_entries_match_dynamodb_filter_expression(exams_app):
    from exams.attempts import repository as repo
    from lambdakit.conditions import Attr

    pk = _seed(repo, 5, 60)
    for cutoff in (99, 100, 160, 250, 10_000):
        for limit in (1, 5, 20, 1000):
            expected = repo.table().query_all(pk, filter=Attr("at").lte(cutoff), max_items=limit)
            got = repo.folds_due(5, cutoff, limit)
            assert [i["sk"] for i in got] == [i["sk"] for i in expected], (cutoff, limit)
    assert len(repo.folds_due(5, 160, 1000)) > 17  # more than one page of entries was read


def test_an_entry_without_a_numeric_at_is_never_due(exams_app):
    from exams.attempts import repository as repo

    _seed(repo, 6, 14, string_at=True)
    due = {i["sk"] for i in repo.folds_due(6, 10_000, 1000)}
    assert due == {f"att-{i:03d}" for i in range(14) if i % 7 not in (3, 5)}


def test_a_sweep_tick_builds_no_condition_expression(exams_app, monkeypatch):
    from exams.attempts import repository as repo
    from exams.attempts import sweep
    from lambdakit import ddb

    built: list[object] = []
    real = ddb.build_filter
    monkeypatch.setattr(ddb, "build_filter", lambda flt: built.append(flt) or real(flt))

    _seed(repo, 0, 4)  # att-003 has no ``at``
    repo.table().put({"pk": repo.MARK_PK, "sk": "FOLDDUE#0", "marked_at": 1})  # the shard is marked
    with imports_requested() as seen, count_calls() as cc:
        requeued = sweep.requeue_folds()
    assert requeued == 3  # the entries with an ``at`` long past the cutoff
    assert cc.calls["dynamodb.Query"] >= 1  # the marked shard was queried
    assert built == []  # no FilterExpression
    assert not [m for m in seen if m.split(".")[0] == "boto3"]
