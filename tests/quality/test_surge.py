"""Surges on one item (issue #21 part 2): the write-sharded structures keep their guarantees.

- a sharded counter under concurrent increments sums exactly, spread over several items;
- a sharded rate limit never admits more than its limit across shards (per-shard budgets sum to
  the limit), and spreads its writes over several window items;
- a used-up window refuses a flood without writing to the window item again.

Parallel calls run in threads against moto with ``atomic_moto`` (see test_concurrency.py).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor


def _table():
    from campaigns.settings import settings
    from lambdakit.ddb import Table

    return Table(settings().table_name)


def _parallel(fn, n: int, workers: int = 12) -> list:
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, range(n)))


def test_sharded_counter_sums_exactly_under_concurrent_increments(campaigns_app, atomic_moto):
    from lambdakit import shards

    t = _table()
    _parallel(lambda i: shards.add(t, "CNT#surge", "TOTAL", {"n": 1, "amount": 2}, 8), 96)
    total = shards.read(t, "CNT#surge", "TOTAL", 8, consistent=True)
    assert total == {"n": 96, "amount": 192}
    items = [t.get(pk, sk, consistent=True) for pk, sk in shards.keys("CNT#surge", "TOTAL", 8)]
    assert sum(1 for it in items if it) >= 3  # the writes were spread, not all on one item
    assert shards.keys("CNT#surge", "TOTAL", 8)[0] == ("CNT#surge", "TOTAL")  # shard 0 is the old item
    assert len({pk for pk, _ in shards.keys("CNT#surge", "TOTAL", 8)}) == 8  # distinct partition keys


def test_shard_count_follows_the_expected_rate():
    from lambdakit import ratelimit, shards

    assert shards.shard_count(10) == 1
    assert shards.shard_count(1000) == 4  # 250 writes/s per shard: a quarter of the partition ceiling
    assert shards.shard_count(10**9) == shards.MAX_SHARDS
    assert ratelimit.shards_for(1000) == 1  # the plan limits keep one item (and exact headers)
    assert ratelimit.shards_for(1000, cost=25) == 1  # the send gate: 40 writes per window
    assert ratelimit.shards_for(120_000) == shards.MAX_SHARDS  # an enterprise key: 3,750 per shard
    assert ratelimit.shards_for(2000) == 8
    for limit, n in ((120_000, 8), (1001, 4), (7, 3)):
        assert sum(ratelimit.budget(limit, n, i) for i in range(n)) == limit


def test_sharded_rate_limit_never_admits_more_than_the_limit(campaigns_app, atomic_moto, monkeypatch):
    from lambdakit import ratelimit, shards

    # shard a small limit so the test stays fast: 40 per minute over 7 shards (budgets 6,6,6,6,6,5,5)
    monkeypatch.setattr(ratelimit, "SHARD_ABOVE", 0)
    monkeypatch.setattr(ratelimit, "MIN_SHARD_BUDGET", 5)
    monkeypatch.setattr(shards, "PER_SHARD_WRITES", 6)
    assert ratelimit.shards_for(40) == 7
    t = _table()
    decisions = _parallel(lambda i: ratelimit.hit(t, "surge-key", 40, 60), 120)
    admitted = sum(d.allowed for d in decisions)
    assert admitted <= 40
    assert admitted >= 34  # the trade-off: a little budget may stay unused near the end
    start = decisions[0].reset_at - 60
    hits = [t.get(pk, sk, consistent=True) for pk, sk in shards.keys("RL#surge-key", f"W#60#{start}", 7)]
    assert sum(1 for h in hits if h) >= 4
    # each shard admitted exactly the hits within its budget
    assert admitted == sum(min(int(h["hits"]), ratelimit.budget(40, 7, i)) for i, h in enumerate(hits) if h)


def test_a_used_up_window_refuses_a_flood_without_writing(campaigns_app):
    from lambdakit import ratelimit
    from local_runtime.callcount import count_calls

    t = _table()
    assert [ratelimit.hit(t, "flooded", 3, 60).allowed for _ in range(4)] == [True, True, True, False]
    with count_calls() as cc:
        flood = [ratelimit.hit(t, "flooded", 3, 60) for _ in range(50)]
    assert not any(d.allowed for d in flood)
    assert all(d.remaining == 0 and "Retry-After" in d.headers() for d in flood)
    assert cc.total("dynamodb") == 0
    assert ratelimit.hit(t, "other", 3, 60).allowed  # other subjects are unaffected


def test_exam_stats_and_audit_counters_sum_exactly_under_a_deadline_burst(exams_app, atomic_moto):
    """The counters every submit bumps (platform and tenant stats, audit totals) are sharded:
    60 parallel bumps read back exactly, spread over several items."""
    from exams.audit import repository as audit
    from exams.stats import counters
    from lambdakit import ids, shards

    def submit(i: int) -> None:
        counters.bump("client-x", attempts_submitted=1, score_sum=0.5)
        audit.put_row({"id": ids.new_id(), "created_at": f"2026-01-01T00:00:{i:02d}.000Z", "user_id": f"u{i % 3}",
                       "action": "attempt.submit", "entity_type": "attempt", "entity_id": f"a{i}"})

    _parallel(submit, 60)
    assert counters.read(None)["attempts_submitted"] == 60
    got = counters.read("client-x")
    assert got["attempts_submitted"] == 60 and abs(got["score_sum"] - 30.0) < 1e-9
    assert audit.count("ALL") == 60 and audit.count("ACTION#attempt.submit") == 60
    assert sum(audit.count(f"USER#u{k}") for k in range(3)) == 60
    t = audit.table()
    used = [t.get(pk, sk, consistent=True) for pk, sk in shards.keys(counters.GLOBAL_PK, counters.SK, counters.SHARDS)]
    assert counters.SHARDS >= 4 and sum(1 for it in used if it) >= 4  # the burst is spread
    used = [t.get(pk, sk, consistent=True) for pk, sk in shards.keys(audit.COUNT_PK, "ALL", audit.COUNT_SHARDS)]
    assert sum(1 for it in used if it) >= 4
