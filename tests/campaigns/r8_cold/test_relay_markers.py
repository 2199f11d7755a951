"""Relay shard occupancy markers (issue 21): the dispatcher's webhook relay sweep reads the eight
shard markers in one BatchGetItem and queries only the marked shards, and never misses a
delivery: not one put on a shard by a process that marked it minutes ago, not one inserted while
a sweep clears the shard's marker."""
from __future__ import annotations

import pytest

from bench.callcount import count_calls
from lambdakit import clock
from lambdakit import occupancy as occ

ACCOUNT = "acct-relay"
_REAL_NET_DUE = occ.net_due


@pytest.fixture(autouse=True)
def _no_full_sweep(monkeypatch):
    """The periodic full sweep (every ``FULL_SWEEP_MINUTES``) would make a call count depend on the
    minute the test runs in: off, except where a test turns it on."""
    monkeypatch.setattr(occ, "net_due", lambda keys, now=None: [])


@pytest.fixture
def wh(campaigns_app):
    from campaigns.webhooks import repository as repo

    return repo


def _fresh_process(repo) -> None:
    """What a new Lambda process knows about the markers: nothing."""
    occ.forget()


def _delivery_on(repo, shard: int, n: int = 0) -> dict:
    """A relayed delivery (as ``emit`` records it) whose id lands on ``shard``."""
    from campaigns.webhooks.dispatch import new_delivery

    i = 0
    while True:
        did = f"d{shard}x{n}x{i}"
        if repo._shard(did) == shard:
            break
        i += 1
    d = new_delivery(ACCOUNT, {"id": "wh1"}, "contact.subscribed", "{}", delivery_id=did)
    created, _ = repo.create_delivery(d, relay=True)
    assert created
    return d


def _stale(repo) -> list[str]:
    from campaigns.webhooks.dispatch import RELAY_STALE_SECONDS

    cutoff = clock.iso(clock.now() - __import__("datetime").timedelta(seconds=RELAY_STALE_SECONDS))
    return sorted(d["id"] for d in repo.stale_relays(cutoff))


def _marks(repo) -> dict[int, int]:
    t = repo.table()
    found = t.get_many([repo.mark_keys()[s] for s in range(repo.RELAY_SHARDS)], consistent=True)
    return {s: int(found[repo.mark_keys()[s]]["marked_at"]) for s in range(repo.RELAY_SHARDS)
            if repo.mark_keys()[s] in found}


def _shard_queries(cc) -> int:
    return cc.calls.get("dynamodb.Query", 0)


def test_constants_keep_a_cached_mark_unclearable():
    from campaigns.webhooks import dispatch

    assert occ.WRITER_RUN_SECONDS >= 900  # Lambda's longest run
    assert occ.CLEAR_AFTER_SECONDS >= occ.REUSE_SECONDS + occ.WRITER_RUN_SECONDS + occ.INDEX_LAG_SECONDS
    assert occ.INDEX_LAG_SECONDS <= dispatch.RELAY_STALE_SECONDS  # the index shows what the sweep must find


def test_sweep_of_an_idle_table_is_one_batch_get(wh):
    with count_calls() as cc:
        assert _stale(wh) == []
    assert cc.calls == {"dynamodb.BatchGetItem": 1}


def test_a_delivery_marks_its_shard_once_per_process_and_only_marked_shards_are_queried(wh, later):
    _delivery_on(wh, 3, 0)
    assert set(_marks(wh)) == {3}
    with count_calls() as cc:
        _delivery_on(wh, 3, 1)  # marked by this process a moment ago: no marker write
    assert cc.calls == {"dynamodb.PutItem": 1}
    later(occ.REUSE_SECONDS + 1)
    with count_calls() as cc:
        _delivery_on(wh, 3, 2)
    assert cc.calls == {"dynamodb.UpdateItem": 1, "dynamodb.PutItem": 1}
    with count_calls() as cc:
        assert len(_stale(wh)) == 2  # the first two are stale now; the third is not yet
    assert cc.calls == {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 1}


def test_every_relayed_delivery_is_found_once_stale_on_every_shard(wh, later):
    made = [_delivery_on(wh, s, n)["id"] for s in range(wh.RELAY_SHARDS) for n in range(2)]
    later(301)
    assert _stale(wh) == sorted(made)


def test_a_writer_relying_on_its_cached_mark_is_never_lost(wh, later):
    """Marked at t0, a process puts a delivery on the shard just before its mark's reuse ends;
    every sweep from then on (the marker as old as the clearing age and more) still queries the
    shard and finds the delivery once stale."""
    first = _delivery_on(wh, 5, 0)
    wh.update_delivery("wh1", first["id"], set={}, picked_up=True)
    later(occ.REUSE_SECONDS - 1)
    with count_calls() as cc:
        late = _delivery_on(wh, 5, 1)["id"]
    assert "dynamodb.UpdateItem" not in cc.calls  # relied on the cached mark
    seen: set[str] = set()
    for at in range(occ.REUSE_SECONDS, occ.REUSE_SECONDS + 2 * occ.CLEAR_AFTER_SECONDS, 60):
        later(at)
        found = _stale(wh)
        seen.update(found)
        if at >= occ.REUSE_SECONDS - 1 + 301:
            assert found == [late], at  # on the shard and stale: found at every sweep
    assert seen == {late}
    assert 5 in _marks(wh)  # never cleared while the delivery is on the shard


def test_an_empty_shard_is_unmarked_after_the_clearing_age_and_marked_again_by_the_next_delivery(wh, later):
    d = _delivery_on(wh, 2, 0)
    wh.update_delivery("wh1", d["id"], set={"status": "delivered"}, picked_up=True)
    later(occ.CLEAR_AFTER_SECONDS - 5)
    assert _stale(wh) == [] and set(_marks(wh)) == {2}  # too recent to clear
    later(occ.CLEAR_AFTER_SECONDS + 5)
    assert _stale(wh) == [] and _marks(wh) == {}  # verified empty: cleared
    with count_calls() as cc:
        assert _stale(wh) == []
    assert cc.calls == {"dynamodb.BatchGetItem": 1}
    _fresh_process(wh)  # (this process's cached mark has long run out anyway)
    again = _delivery_on(wh, 2, 1)["id"]
    assert set(_marks(wh)) == {2}
    later(occ.CLEAR_AFTER_SECONDS + 5 + 301)
    assert _stale(wh) == [again]


def test_a_shard_holding_only_fresh_deliveries_is_not_cleared(wh, later):
    d = _delivery_on(wh, 4, 0)
    wh.update_delivery("wh1", d["id"], set={}, picked_up=True)
    later(occ.CLEAR_AFTER_SECONDS + 5)
    _fresh_process(wh)
    fresh = _delivery_on(wh, 4, 1)["id"]  # marks again (a new process)
    # the marker read by a sweep is recent now; simulate an old marker with a fresh delivery on the shard
    wh.table().update(*wh.mark_keys()[4], set={"marked_at": 1})
    assert _stale(wh) == []  # fresh: not stale, but the shard is not empty
    assert set(_marks(wh)) == {4}
    later(occ.CLEAR_AFTER_SECONDS + 5 + 301)
    assert _stale(wh) == [fresh]


@pytest.mark.parametrize("new_process", [True, False])
def test_an_insert_racing_the_clear_is_never_lost(wh, later, monkeypatch, new_process):
    """The sweep reads an old marker, queries the shard and finds it empty; before its delete, a
    writer marks the shard and puts a delivery on it. The delete's condition fails: the marker
    stays and the delivery is found once stale."""
    d = _delivery_on(wh, 6, 0)
    wh.update_delivery("wh1", d["id"], set={}, picked_up=True)
    later(occ.CLEAR_AFTER_SECONDS + 5)
    if new_process:
        _fresh_process(wh)
    real_table = wh.table
    raced: list[str] = []

    class Racing(type(real_table())):
        def query(self, pk_value, **kw):
            out = super().query(pk_value, **kw)
            if pk_value == f"{wh.RELAY_PK}#6" and not raced:
                clock.set_offset(occ.CLEAR_AFTER_SECONDS + 6)  # the writer's mark is newer
                raced.append(_delivery_on(wh, 6, 1)["id"])
            return out

    monkeypatch.setattr(wh, "table", lambda: Racing(real_table().name))
    assert _stale(wh) == []
    monkeypatch.setattr(wh, "table", real_table)
    assert raced and set(_marks(wh)) == {6}, "the conditional delete kept the marker"
    later(occ.CLEAR_AFTER_SECONDS + 6 + 301)
    assert _stale(wh) == raced


def test_the_tick_queries_no_empty_shard(campaigns_app, pipe, camp, receiver, later):
    """Through the dispatcher: an idle tick reads the markers once and no relay shard; a
    contact.subscribed delivery's shard is queried until the delivery is attempted and cleared
    once the clearing age has passed."""
    with count_calls() as cc:
        t = pipe.tick()
    assert t["webhooks_requeued"] == 0
    idle = _shard_queries(cc)
    assert cc.calls.get("dynamodb.BatchGetItem") == 1
    assert camp.post("/webhooks", json={"name": "w", "url": receiver.url, "events": ["contact.subscribed"]}).status == 201
    assert camp.post("/contacts", json={"email": "sub@example.com"}).status == 201
    with count_calls() as cc:
        pipe.tick()
    assert _shard_queries(cc) == idle + 1
    later(301)
    assert pipe.tick()["webhooks_requeued"] == 1
    pipe.webhooks_all()
    assert len(receiver.requests) == 1
    later(occ.CLEAR_AFTER_SECONDS + 5)
    pipe.tick()  # verified empty: the marker goes
    with count_calls() as cc:
        pipe.tick()
    assert _shard_queries(cc) == idle


def test_the_bulk_relay_index_is_queried_only_while_marked(campaigns_app, later):
    from campaigns.sending import relay
    from campaigns.sending import repository as sends

    with count_calls() as cc:
        assert sends.relaying_bulks() == []
    assert cc.calls == {"dynamodb.BatchGetItem": 1}
    bulk = {"id": "b1", "account_id": ACCOUNT, "batches_total": 1, "batches_done": 0}
    assert sends.put_bulk(bulk, [{"batch_no": 1, "recipients": [{"e": "x@example.com"}], "delay": 0}],
                          relay.lease_until()) is None
    assert set(sends.table().get_many([sends.RELAY_MARK], consistent=True)) == {sends.RELAY_MARK}
    assert [b["id"] for b in sends.relaying_bulks()] == ["b1"]
    later(occ.CLEAR_AFTER_SECONDS + 5)
    assert [b["id"] for b in sends.relaying_bulks()] == ["b1"]  # on the index: the marker stays
    sends.end_relay("b1")
    assert sends.relaying_bulks() == []  # found empty, old enough: cleared
    with count_calls() as cc:
        assert sends.relaying_bulks() == []
    assert cc.calls == {"dynamodb.BatchGetItem": 1}
    occ.forget()
    assert sends.put_bulk({**bulk, "id": "b2"}, [{"batch_no": 1, "recipients": [{"e": "y@example.com"}], "delay": 0}],
                          relay.lease_until()) is None
    assert [b["id"] for b in sends.relaying_bulks()] == ["b2"]


def test_an_idle_tick_reads_one_batch_of_markers_and_no_relay_partition(campaigns_app, pipe):
    with count_calls() as cc:
        t = pipe.tick()
    assert t["bulk_batches_requeued"] == 0 and t["webhooks_requeued"] == 0
    # the due and sending work indexes, then the relays' markers: nothing else
    assert cc.calls == {"dynamodb.Query": 2, "dynamodb.BatchGetItem": 1}


def test_every_bulk_marks_the_relay_index(campaigns_app):
    """A bulk request writes the marker each time (its calls do not depend on the process's past)."""
    from campaigns.sending import relay
    from campaigns.sending import repository as sends

    for n in range(2):
        with count_calls() as cc:
            assert sends.put_bulk({"id": f"b{n}", "account_id": ACCOUNT, "batches_total": 1, "batches_done": 0},
                                  [{"batch_no": 1, "recipients": [{"e": "x@example.com"}], "delay": 0}],
                                  relay.lease_until()) is None
        assert cc.calls == {"dynamodb.UpdateItem": 1, "dynamodb.BatchWriteItem": 1, "dynamodb.PutItem": 1}


def test_the_full_sweep_finds_a_delivery_whose_marker_is_gone(campaigns_app, pipe, camp, receiver, later,
                                                               monkeypatch):
    """The net under the timing assumptions: a delivery on a shard whose marker was lost (here:
    deleted by hand, as an index lag beyond INDEX_LAG_SECONDS would let a sweep do) is not seen by
    the marker-driven ticks, and is requeued by the next full sweep, which queries every shard and
    clears nothing."""
    from campaigns.webhooks import repository as wh

    assert camp.post("/webhooks", json={"name": "w", "url": receiver.url, "events": ["contact.subscribed"]}).status == 201
    assert camp.post("/contacts", json={"email": "lost@example.com"}).status == 201
    marked = _marks(wh)
    assert len(marked) == 1
    for s in marked:
        wh.table().delete(*wh.mark_keys()[s])
    later(301)
    assert pipe.tick()["webhooks_requeued"] == 0  # unmarked: not queried
    with count_calls() as cc:
        monkeypatch.setattr(occ, "net_due", lambda keys, now=None: list(keys))
        assert pipe.tick()["webhooks_requeued"] == 1
    assert _shard_queries(cc) >= wh.RELAY_SHARDS  # every shard
    assert _marks(wh) == {}  # nothing cleared or marked by the full sweep itself
    pipe.webhooks_all()
    assert len(receiver.requests) == 1


def test_the_net_spreads_every_partition_over_the_period(monkeypatch):
    monkeypatch.setattr(occ, "net_due", _REAL_NET_DUE)
    keys = [("a", str(i)) for i in range(40)]
    seen = [k for m in range(occ.FULL_SWEEP_MINUTES) for k in _REAL_NET_DUE(keys, m * 60.0 + 7)]
    assert sorted(seen) == sorted(keys)  # each once per period
    assert max(len(_REAL_NET_DUE(keys, m * 60.0)) for m in range(occ.FULL_SWEEP_MINUTES)) == 2  # ceil(40/30)
    assert _REAL_NET_DUE(keys, 30 * 60.0 + 7) == _REAL_NET_DUE(keys, 7.0) == [("a", "0"), ("a", "1")]
    marked = occ.with_net(keys, {("a", "1"): {"marked_at": 5}, ("a", "9"): {"marked_at": 6}}, now=7.0)
    assert marked == {("a", "0"): {"marked_at": float("inf")}, ("a", "1"): {"marked_at": 5},
                      ("a", "9"): {"marked_at": 6}}
    assert occ.with_every_partition([("a", "1"), ("b", "1")], {("a", "1"): {"marked_at": 5}}) == {
        ("a", "1"): {"marked_at": 5}, ("b", "1"): {"marked_at": float("inf")}}
    assert not occ.clearable({"marked_at": float("inf")})
