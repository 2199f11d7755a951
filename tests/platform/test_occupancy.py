"""``lambdakit.occupancy`` (issue 21), service-agnostic: a writer marks a partition before it puts
work there (once per process and partition in ``REUSE_SECONDS``), a sweep reads the markers in one
BatchGetItem, clears one only when old enough and still the value it read (a conditional delete
that a racing mark defeats), and every ``FULL_SWEEP_MINUTES`` queries every partition. On moto,
any service's table (internships' here: the module knows nothing of the service)."""
from __future__ import annotations

import pytest

from bench.callcount import count_calls
from lambdakit import clock, occupancy
from lambdakit.ddb import Table

A, B = ("OCC", "A"), ("OCC", "B")


@pytest.fixture
def later():
    yield clock.set_offset
    clock.set_offset(0)


@pytest.fixture
def name(internships_app) -> str:
    from internships.settings import settings

    return settings().table_name


@pytest.fixture
def markers(name):
    return occupancy.Markers(lambda: name)  # a table-name getter; owner: the name


def test_constants_keep_a_cached_mark_unclearable():
    assert occupancy.CLEAR_AFTER_SECONDS >= (occupancy.REUSE_SECONDS + occupancy.WRITER_RUN_SECONDS
                                             + occupancy.INDEX_LAG_SECONDS)


def test_mark_writes_once_per_reuse_period_and_read_is_one_batch_get(markers, later):
    with count_calls() as cc:
        markers.mark(A)
        markers.mark(A)  # reused: no write
    assert cc.calls == {"dynamodb.UpdateItem": 1}
    with count_calls() as cc:
        found = markers.read([A, B])
    assert cc.calls == {"dynamodb.BatchGetItem": 1}
    assert set(found) == {A}
    first = found[A]["marked_at"]
    later(occupancy.REUSE_SECONDS + 1)
    with count_calls() as cc:
        markers.mark(A)
    assert cc.calls == {"dynamodb.UpdateItem": 1}
    assert markers.read([A])[A]["marked_at"] > first
    with count_calls() as cc:
        markers.mark(A, reuse=False)  # a writer whose calls must not depend on its past
    assert cc.calls == {"dynamodb.UpdateItem": 1}


def test_marked_at_is_only_raised(markers, name, later):
    later(100)
    markers.mark(A)
    at = markers.read([A])[A]["marked_at"]
    later(0)
    occupancy.forget()  # another process, its clock behind
    markers.mark(A)  # the condition fails quietly
    assert markers.read([A])[A]["marked_at"] == at


def test_forget_and_a_new_owner_start_with_an_empty_memory(markers, name):
    markers.mark(A)
    occupancy.forget()
    with count_calls() as cc:
        markers.mark(A)
    assert cc.calls == {"dynamodb.UpdateItem": 1}
    owner = {"o": object()}
    other = occupancy.Markers(lambda: Table(name), owner=lambda: owner["o"])  # a Table getter
    other.mark(B)
    owner["o"] = object()  # a test swapped the settings (and the table)
    with count_calls() as cc:
        other.mark(B)
    assert cc.calls == {"dynamodb.UpdateItem": 1}


def test_clearable_only_after_the_clearing_age(markers, later):
    markers.mark(A)
    m = markers.read([A])[A]
    later(occupancy.CLEAR_AFTER_SECONDS - 5)
    assert not occupancy.clearable(m)
    later(occupancy.CLEAR_AFTER_SECONDS + 5)
    assert occupancy.clearable(m)
    markers.clear(A, m)
    assert markers.read([A]) == {}


def test_a_mark_racing_the_clear_keeps_the_marker(markers, name, later):
    markers.mark(A)
    m = markers.read([A])[A]  # the sweep's read
    later(occupancy.CLEAR_AFTER_SECONDS + 5)
    assert occupancy.clearable(m)
    occupancy.forget()
    markers.mark(A)  # a writer marks between the sweep's read and its delete
    occupancy.clear(Table(name), A, m)  # condition fails: kept
    assert markers.read([A])[A]["marked_at"] > m["marked_at"]


def test_the_net_covers_every_partition_once_per_period_and_clears_nothing():
    keys = [("p", str(i)) for i in range(16)]
    turns = {k: [m for m in range(120) if k in occupancy.net_due(keys, m * 60.0 + 7)] for k in keys}
    assert all(len(ms) == 4 and ms[1] - ms[0] == occupancy.FULL_SWEEP_MINUTES for ms in turns.values())
    assert max(len(occupancy.net_due(keys, m * 60.0)) for m in range(120)) == 1
    assert occupancy.net_due([], 0.0) == [] and occupancy.with_net([], {}, 0.0) == {}
    net = occupancy.with_net(keys, {}, now=7.0)
    assert net == {keys[0]: {"marked_at": float("inf")}} and not occupancy.clearable(net[keys[0]])
    every = occupancy.with_every_partition([A, B], {A: {"marked_at": 5}})
    assert every == {A: {"marked_at": 5}, B: {"marked_at": float("inf")}}
    assert not occupancy.clearable(every[B])


def test_work_found_without_a_marker_is_logged_and_counted(monkeypatch, caplog):
    """The full sweep's net is visible: work under a partition that had no marker (a lost marker)
    is a WARNING and the OccupancyMarkerMissed metric; work under a real marker, or under the
    markers of a sweep that could not read them, is expected and says nothing."""
    from lambdakit import observability

    counted: list[tuple[str, float]] = []
    monkeypatch.setattr(observability, "count", lambda n, v=1, *a, **k: counted.append((n, v)))
    swept = occupancy.with_every_partition([A, B], {A: {"marked_at": 5}})
    occupancy.found(swept[A], A, 3)  # a real marker: expected work
    occupancy.found(swept[B], B, 0)  # nothing found
    occupancy.found(occupancy.unread([B])[B], B, 2)  # markers unread: every partition queried
    assert counted == []
    occupancy.found(swept[B], B, 2)
    assert counted == [("OccupancyMarkerMissed", 2)]
    # a record other than a marker (a counter) that said none: reported directly
    occupancy.missed(A, 0)
    assert counted == [("OccupancyMarkerMissed", 2)]
    occupancy.missed(A, 4)
    assert counted == [("OccupancyMarkerMissed", 2), ("OccupancyMarkerMissed", 4)]
    assert not occupancy.clearable(occupancy.unread([A])[A])
