"""The attempt sweep's occupancy markers (issue 21, ``lambdakit.occupancy``): a tick reads the 16
shard markers (8 ``OPEN``, 8 ``FOLDDUE``) in one BatchGetItem and queries only the marked shards;
no due attempt or fold entry is ever missed: not one started by a process that marked its shard
minutes ago, not one started while a sweep clears the shard's marker, not one whose marker was
lost (the periodic full sweep)."""
from __future__ import annotations

import botocore.exceptions
import pytest

from bench.callcount import count_calls
from lambdakit import clock
from lambdakit import occupancy as occ
from tests.exams.delivery.delivery_helpers import drain_analytics, mcq

_REAL_NET_DUE = occ.net_due
TIMER = 5 * 60  # a 5-minute test
PAST_DEADLINE = TIMER + 61  # past the deadline and the 60 s grace


@pytest.fixture(autouse=True)
def _no_full_sweep(monkeypatch):
    """The periodic full sweep (every ``FULL_SWEEP_MINUTES``) would make a call count depend on the
    minute the test runs in: off, except where a test turns it on."""
    monkeypatch.setattr(occ, "net_due", lambda keys, now=None: [])


@pytest.fixture
def later():
    yield clock.set_offset
    clock.set_offset(0)


@pytest.fixture
def repo():
    from exams.attempts import repository

    return repository


@pytest.fixture
def sweep():
    from exams.attempts import sweep as mod

    return mod


@pytest.fixture
def on_shard(monkeypatch):
    """Starts land on the shard set here (the start picks one at random)."""
    from exams.attempts import start

    chosen = {"shard": 0}
    monkeypatch.setattr(start.secrets, "randbelow", lambda n: chosen["shard"])

    def set_shard(shard: int) -> None:
        chosen["shard"] = shard

    return set_shard


@pytest.fixture
def marker_writes(monkeypatch):
    """The marker items' UpdateItem calls, as (pk, sk)."""
    from lambdakit.ddb import Table

    writes: list[tuple[str, str]] = []
    real = Table.update

    def update(self, pk, sk, **kw):
        if pk == "SWEEPMARK":
            writes.append((pk, sk))
        return real(self, pk, sk, **kw)

    monkeypatch.setattr(Table, "update", update)
    return writes


def _marks(repo) -> dict[str, int]:
    found = repo.table().get_many(repo.sweep_marks(), consistent=True)
    return {sk: int(m["marked_at"]) for (_, sk), m in found.items()}


def _status(repo, attempt_id: str) -> str:
    return repo.get(attempt_id)["status"]


def _refuse(**_):
    raise botocore.exceptions.ClientError({"Error": {"Code": "ServiceUnavailable", "Message": "down"}},
                                          "SendMessage")


def test_constants():
    from exams.attempts import repository

    assert occ.WRITER_RUN_SECONDS >= 900  # Lambda's longest run
    assert occ.CLEAR_AFTER_SECONDS >= occ.REUSE_SECONDS + occ.WRITER_RUN_SECONDS + occ.INDEX_LAG_SECONDS
    assert len(set(repository.sweep_marks())) == 16


def test_an_idle_tick_is_one_batch_get(exams_app, sweep):
    with count_calls() as cc:
        assert sweep.run() == {"seen": 0, "submitted": 0, "folds_requeued": 0}
    assert cc.calls == {"dynamodb.BatchGetItem": 1}


def test_a_started_attempt_marks_its_shard_which_is_queried_until_the_attempt_is_submitted(
        tenant, repo, sweep, on_shard, later):
    q = tenant.question(**mcq("Q", correct="A"))
    t = tenant.test([q["id"]], timer=5)
    on_shard(3)
    a = tenant.start(t)
    assert repo.table().get(*repo.attempt_key(a["id"]))["gsi3pk"] == "OPEN#3"
    assert set(_marks(repo)) == {"OPEN#3"}
    with count_calls() as cc:
        assert sweep.run()["seen"] == 0  # not due yet
    assert cc.calls == {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 1}  # the one marked shard
    later(PAST_DEADLINE)
    out = sweep.run()
    assert out["submitted"] == 1 and _status(repo, a["id"]) == "submitted"
    assert sweep.run()["submitted"] == 0  # exactly once
    # the submission put a fold entry: its shard is marked too
    assert {sk.split("#")[0] for sk in _marks(repo)} == {"OPEN", "FOLDDUE"}


def test_a_process_marks_a_shard_once_per_reuse_period_whatever_the_starts(tenant, repo, on_shard, later,
                                                                         marker_writes):
    """The start surge bound: one marker write per process and shard in REUSE_SECONDS."""
    q = tenant.question(**mcq("Q"))
    t = tenant.test([q["id"]], attempts_allowed=0)
    students = [tenant.users.student(tenant.client["id"]) for _ in range(3)]
    for n in range(12):
        on_shard(n % 4)
        tenant.start(t, students[n % 3])
    assert marker_writes == [("SWEEPMARK", f"OPEN#{s}") for s in range(4)]
    later(occ.REUSE_SECONDS + 1)
    on_shard(0)
    tenant.start(t, students[0])
    assert marker_writes[4:] == [("SWEEPMARK", "OPEN#0")]  # the reuse ran out: marked again
    occ.forget()  # a new process
    on_shard(1)
    tenant.start(t, students[1])
    assert marker_writes[5:] == [("SWEEPMARK", "OPEN#1")]


def test_a_start_relying_on_its_cached_mark_is_never_lost(tenant, repo, sweep, on_shard, later):
    """Marked at t0, the process starts another attempt on the shard just before its mark's reuse
    ends; every sweep from then on (the marker as old as the clearing age and more) still queries
    the shard, and submits the attempt once due."""
    q = tenant.question(**mcq("Q"))
    t = tenant.test([q["id"]], timer=30, attempts_allowed=0)
    on_shard(5)
    first = tenant.start(t)
    later(occ.REUSE_SECONDS - 1)
    late = tenant.start(t)  # relies on the cached mark
    assert set(_marks(repo)) == {"OPEN#5"}
    tenant.app.exams.post(f"/api/attempts/{first['id']}/submit", headers=tenant.students[0].headers)
    submitted = []
    for at in range(occ.REUSE_SECONDS, occ.REUSE_SECONDS + 2 * occ.CLEAR_AFTER_SECONDS, 120):
        later(at)
        on_index = _status(repo, late["id"]) == "in_progress"
        submitted.append(sweep.run()["submitted"])
        if on_index:
            assert "OPEN#5" in _marks(repo), at  # never cleared while the attempt is on the shard
    assert sum(submitted) == 1 and _status(repo, late["id"]) == "submitted"
    assert "OPEN#5" not in _marks(repo)  # then cleared, once old enough and found empty


def test_an_empty_shard_is_unmarked_after_the_clearing_age(tenant, repo, sweep, on_shard, later):
    q = tenant.question(**mcq("Q"))
    t = tenant.test([q["id"]])
    on_shard(2)
    a = tenant.start(t)
    r = tenant.app.exams.post(f"/api/attempts/{a['id']}/submit", headers=tenant.students[0].headers)
    assert r.status == 200, r.text
    drain_analytics(tenant.app)  # folded: the fold entry is gone
    later(occ.CLEAR_AFTER_SECONDS - 5)
    sweep.run()
    assert "OPEN#2" in _marks(repo)  # too recent to clear
    later(occ.CLEAR_AFTER_SECONDS + 5)
    sweep.run()
    assert _marks(repo) == {}  # both shards verified empty: cleared
    with count_calls() as cc:
        sweep.run()
    assert cc.calls == {"dynamodb.BatchGetItem": 1}


@pytest.mark.parametrize("new_process", [True, False])
def test_a_start_racing_the_clear_is_never_lost(tenant, repo, sweep, on_shard, later, monkeypatch, new_process):
    """The sweep reads an old marker, queries the shard and finds it empty; before its delete, a
    start marks the shard and puts an attempt on it. The delete's condition fails: the marker
    stays and the attempt is submitted once due."""
    q = tenant.question(**mcq("Q"))
    t = tenant.test([q["id"]], timer=5, attempts_allowed=0)
    on_shard(6)
    a = tenant.start(t)
    tenant.app.exams.post(f"/api/attempts/{a['id']}/submit", headers=tenant.students[0].headers)
    later(occ.CLEAR_AFTER_SECONDS + 5)
    if new_process:
        occ.forget()
    real_table = repo.table
    raced: list[str] = []

    class Racing(type(real_table())):
        def query(self, pk_value, **kw):
            out = super().query(pk_value, **kw)
            if pk_value == "OPEN#6" and not raced:
                assert out[0] == []  # found empty
                clock.set_offset(occ.CLEAR_AFTER_SECONDS + 6)  # the start's mark is newer
                raced.append(tenant.start(t)["id"])
            return out

    monkeypatch.setattr(repo, "table", lambda: Racing(real_table().name))
    assert sweep.run()["submitted"] == 0
    monkeypatch.setattr(repo, "table", real_table)
    assert raced and "OPEN#6" in _marks(repo), "the conditional delete kept the marker"
    later(occ.CLEAR_AFTER_SECONDS + 6 + PAST_DEADLINE)
    assert sweep.run()["submitted"] == 1 and _status(repo, raced[0]) == "submitted"


def test_the_full_sweep_submits_an_attempt_whose_marker_is_gone(tenant, repo, sweep, on_shard, later, monkeypatch):
    """The net under the timing assumptions: an attempt on a shard whose marker was lost (deleted
    by hand, as an index lag beyond INDEX_LAG_SECONDS would let a sweep do) is not seen by the
    marker-driven ticks, and is submitted by the next full sweep, which queries every shard and
    clears nothing."""
    q = tenant.question(**mcq("Q"))
    t = tenant.test([q["id"]], timer=5)
    on_shard(4)
    a = tenant.start(t)
    repo.table().delete(*repo.open_mark(4))
    later(PAST_DEADLINE)
    assert sweep.run()["submitted"] == 0  # unmarked: not queried
    monkeypatch.setattr(occ, "net_due", lambda keys, now=None: list(keys))
    from lambdakit import observability

    counted: list[tuple[str, float]] = []
    monkeypatch.setattr(observability, "count", lambda n, v=1, *x, **k: counted.append((n, v)))
    with count_calls() as cc:
        assert sweep.run()["submitted"] == 1
    assert _status(repo, a["id"]) == "submitted"
    assert ("OccupancyMarkerMissed", 1) in counted  # the on-call engineer sees the lost marker
    assert cc.calls["dynamodb.Query"] >= 16  # every OPEN and FOLDDUE shard
    assert "dynamodb.DeleteItem" not in cc.calls  # nothing cleared
    assert not any(sk.startswith("OPEN#") for sk in _marks(repo))


def test_an_idle_full_sweep_queries_every_shard_and_clears_nothing(exams_app, sweep, monkeypatch):
    monkeypatch.setattr(occ, "net_due", lambda keys, now=None: list(keys))
    with count_calls() as cc:
        sweep.run()
    assert cc.calls == {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 16}


def test_a_failed_marker_read_queries_every_shard(exams_app, repo, sweep, monkeypatch):
    def broken(keys):
        raise RuntimeError("throttled")

    monkeypatch.setattr(repo.markers, "read", broken)
    with count_calls() as cc:
        sweep.run()
    assert cc.calls == {"dynamodb.Query": 16}


def _refused_fold(tenant, on_shard) -> dict:
    """A submitted, fully graded attempt whose ``attempt_graded`` message SQS refused: its fold
    entry waits in the outbox."""
    from lambdakit import aws

    q = tenant.question(**mcq("Q", correct="A"))
    t = tenant.test([q["id"]])
    on_shard(1)
    a = tenant.start(t)
    sqs = aws.client("sqs")
    sqs.meta.events.register("before-call.sqs.SendMessage", _refuse, unique_id="sweep-markers")
    try:
        r = tenant.app.exams.post(f"/api/attempts/{a['id']}/submit", headers=tenant.students[0].headers)
    finally:
        sqs.meta.events.unregister("before-call.sqs.SendMessage", unique_id="sweep-markers")
    assert r.status == 200, r.text
    assert drain_analytics(tenant.app) == 0
    return a


def test_the_fold_outbox_is_queried_only_while_marked(tenant, repo, sweep, on_shard, later):
    a = _refused_fold(tenant, on_shard)
    fold = f"FOLDDUE#{repo._fold_shard(a['id'])}"
    assert fold in _marks(repo)
    later(repo.FOLD_DUE_AFTER + 5)
    with count_calls() as cc:
        assert sweep.requeue_folds() == 1
    assert cc.calls["dynamodb.BatchGetItem"] == 1
    assert cc.calls["dynamodb.Query"] == 1  # the one marked FOLDDUE shard (OPEN shards: ``run``)
    assert drain_analytics(tenant.app) == 1  # folded: the entry is cleared
    later(occ.CLEAR_AFTER_SECONDS + 5)
    with count_calls() as cc:
        sweep.run()
    # both shards found empty and old enough: a FOLDDUE shard takes the due query and the empty check
    assert cc.calls == {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 3, "dynamodb.DeleteItem": 2}
    assert _marks(repo) == {}


def test_a_fold_entry_whose_marker_is_gone_is_requeued_by_the_full_sweep(tenant, repo, sweep, on_shard, later,
                                                                         monkeypatch):
    a = _refused_fold(tenant, on_shard)
    repo.table().delete(*repo.fold_mark(repo._fold_shard(a["id"])))
    later(repo.FOLD_DUE_AFTER + 5)
    assert sweep.requeue_folds() == 0  # unmarked: not queried
    monkeypatch.setattr(occ, "net_due", lambda keys, now=None: list(keys))
    assert sweep.requeue_folds() == 1
    assert drain_analytics(tenant.app) == 1


def test_a_fold_shard_holding_entries_not_yet_due_is_not_cleared(tenant, repo, sweep, on_shard, later):
    a = _refused_fold(tenant, on_shard)
    key = repo.fold_mark(repo._fold_shard(a["id"]))
    repo.table().update(*key, set={"marked_at": 1})  # an old marker, a fresh entry
    assert sweep.requeue_folds() == 0
    assert key[1] in _marks(repo)


def test_the_net_queries_each_shard_once_per_period_spread_over_its_ticks(exams_app, repo, sweep, later,
                                                                          monkeypatch):
    """An idle sweep ticking every minute for one ``FULL_SWEEP_MINUTES`` period queries every OPEN
    and FOLDDUE shard exactly once, at most two in any tick (the whole net in one tick made that
    tick's cold start 1.33x the floor instead of 1.14x)."""
    monkeypatch.setattr(occ, "net_due", _REAL_NET_DUE)
    period = occ.FULL_SWEEP_MINUTES * 60
    start = period - clock.now_ts() % period + 7  # 7 s into the next period's first minute
    per_tick = []
    for minute in range(occ.FULL_SWEEP_MINUTES):
        later(start + 60 * minute)
        with count_calls() as cc:
            sweep.run()
        assert cc.calls["dynamodb.BatchGetItem"] == 1
        per_tick.append(cc.calls.get("dynamodb.Query", 0))
    assert sum(per_tick) == len(repo.sweep_marks()) and max(per_tick) <= 2, per_tick
