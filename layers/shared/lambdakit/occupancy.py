"""Occupancy markers of sparse work partitions (issue 21): a periodic sweep reads one
BatchGetItem of markers instead of querying every partition of a work index, most of them empty.

Service-agnostic: a service names its partitions' marker items (``Key``: ``(pk, sk)`` in its own
table) and owns one ``Markers`` per table (``Markers(table_getter, owner=settings)``). Users: the
campaigns dispatcher's relays (webhook relay shards, bulk relay), the exams attempt sweep
(``OPEN#<shard>`` index, ``FOLDDUE#<shard>`` outbox).

A marker is one item (``marked_at``, epoch seconds) per partition. A writer calls
``Markers.mark`` before it puts an item on (or moves an item within) the partition; the sweep
reads the markers (``read``, one consistent BatchGetItem), queries only the marked partitions,
and deletes a marker (``clear``) only when ``clearable`` and its partition was queried empty
after the read.

Why no item is ever missed. ``mark`` writes ``marked_at`` (only ever raised, until deleted),
except when this process marked the same partition less than ``REUSE_SECONDS`` ago. So every
index write at ``t_i`` was preceded, at ``t_c >= t_i - WRITER_RUN_SECONDS`` (a Lambda run at
most), by a check that found or wrote ``marked_at >= t_c - REUSE_SECONDS``. The sweep clears only
a value older than ``CLEAR_AFTER_SECONDS`` (the sum of the three periods) at its read, on the
condition that the delete still finds that value. A write relying on that value therefore
happened more than ``INDEX_LAG_SECONDS`` before the read, so the query made after the read shows
its item (an index, a GSI or an eventually consistent base-table query, is given that time to
show a write), unless the item has already left the partition. A write relying on a newer mark
changed ``marked_at``: the delete's condition fails and the marker stays. Clocks: the Lambda
hosts' (NTP-synchronised) wall clocks.

A net under those assumptions: once every ``FULL_SWEEP_MINUTES`` each partition is queried
whatever its marker says, spread over the period (``with_net``: partition ``j`` of ``n`` in
minute ``j * FULL_SWEEP_MINUTES // n`` of each period, so a one-minute tick adds at most
``ceil(n / FULL_SWEEP_MINUTES)`` queries, never all ``n`` at once; an unmarked partition gets a
marker that is never clearable, so the net clears only what any tick would). ``with_every_partition``
is the whole net in one run, for a sweep whose ticks are further apart (the internships e-mail
cron). An item whose marker was lost to an index lag beyond ``INDEX_LAG_SECONDS`` (DynamoDB gives
no bound) is therefore only delayed, by at most that period, never stranded. And it is seen:
work the net finds on a partition that had no marker (``found``) is logged as a WARNING and
counted in the ``OccupancyMarkerMissed`` metric,
which each service's ``OccupancyMarkerMissedAlarm`` watches (docs/operations.md,
#occupancy-marker-missed); right after the first deployment of the markers it also counts work
queued before them, once.

Writes a writer adds: at most one marker write per partition per process per ``REUSE_SECONDS``
(``reuse=False``: one per call, for a writer whose calls must not depend on its process's past).
"""
from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterable, Sequence

from lambdakit import clock
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed

#: A process that marked a partition less than this long ago writes to it without marking again
#: (one marker write per partition per process per ten minutes, not one per item).
REUSE_SECONDS = 600
#: Longest time between a writer's marker check and its index write landing: a Lambda run.
WRITER_RUN_SECONDS = 900
#: Time the index (a GSI, eventually consistent) is given to show a write.
INDEX_LAG_SECONDS = 300
#: A sweep clears a marker only when it was set longer ago than this.
CLEAR_AFTER_SECONDS = REUSE_SECONDS + WRITER_RUN_SECONDS + INDEX_LAG_SECONDS

#: Every partition is queried, marked or not, once in this many minutes (the safety net above).
FULL_SWEEP_MINUTES = 30
#: The marker ``with_every_partition`` gives an unmarked partition: queried, never clearable;
#: work found under it is a missed marker (``found``).
_UNMARKED: dict = {"marked_at": float("inf")}
#: The marker of every partition when the markers could not be read (``unread``): queried, never
#: clearable, and work found under it is expected.
_UNREAD: dict = {"marked_at": float("inf")}

Key = tuple[str, str]

#: Every ``Markers`` of the process (``forget`` empties them all).
_ALL: weakref.WeakSet[Markers] = weakref.WeakSet()
#: ``Markers`` before its first use: no owner seen yet.
_NO_OWNER = object()


class Markers:
    """The writer side of one table's markers, with what this process marked (and when).

    ``table``: returns the table (a ``lambdakit.ddb.Table``, or its name). ``owner``: returns the
    object the per-process memory belongs to (a service passes its settings getter, whose object
    is replaced when a test resets settings with a fresh table); by default the table's name. A
    new owner starts with an empty memory, as a new process would."""

    def __init__(self, table: Callable[[], Table | str], owner: Callable[[], object] | None = None) -> None:
        self._table = table
        self._owner_of = owner
        self._owner: object = _NO_OWNER
        self._at: dict[Key, float] = {}
        _ALL.add(self)

    def table(self) -> Table:
        t = self._table()
        return Table(t) if isinstance(t, str) else t

    def _done(self) -> dict[Key, float]:
        if self._owner_of is not None:
            owner = self._owner_of()
            same = owner is self._owner
        else:
            owner = self.table().name
            same = owner == self._owner
        if not same:
            self._owner, self._at = owner, {}
        return self._at

    def forget(self) -> None:
        """Forget what this process marked (what a new Lambda process knows)."""
        self._owner, self._at = _NO_OWNER, {}

    def mark(self, key: Key, *, reuse: bool = True) -> None:
        """Mark the partition of ``key`` occupied, before an item is put on it (see the module).
        ``reuse=False``: write the marker whatever this process marked before (a writer whose every
        request is heavier than one more write, and whose calls stay the same from one to the next)."""
        now = clock.now_ts()
        done = self._done()
        last = done.get(key)
        if reuse and last is not None and 0 <= now - last < REUSE_SECONDS:
            return
        at = math.ceil(now)
        try:
            self.table().update(*key, set={"marked_at": at},
                                condition="attribute_not_exists(marked_at) OR marked_at < :at",
                                values={":at": at}, return_values="NONE")
        except ConditionFailed:  # marked as late or later by another writer
            pass
        done[key] = now

    def read(self, keys: list[Key]) -> dict[Key, dict]:
        return read(self.table(), keys)

    def clear(self, key: Key, marker: dict) -> None:
        clear(self.table(), key, marker)


def forget() -> None:
    """Forget what this process marked, in every ``Markers`` (what a new Lambda process knows)."""
    for m in list(_ALL):
        m.forget()


def read(table: Table, keys: list[Key]) -> dict[Key, dict]:
    """The markers of ``keys`` that are set (one consistent BatchGetItem)."""
    return table.get_many(keys, consistent=True)


def net_due(keys: Sequence[Key], now: float | None = None) -> list[Key]:
    """The partitions of ``keys`` (in a fixed order) whose turn in the net is this minute: the
    ``j``-th of ``n`` in minute ``j * FULL_SWEEP_MINUTES // n`` of every ``FULL_SWEEP_MINUTES``,
    so each partition once per period and a tick at most ``ceil(n / FULL_SWEEP_MINUTES)`` of them
    (a spike-free net: the whole net in one tick made the exams sweep's cold start 1.33x the
    floor instead of 1.14x)."""
    n = len(keys)
    minute = int((clock.now_ts() if now is None else now) // 60) % FULL_SWEEP_MINUTES
    return [k for j, k in enumerate(keys) if j * FULL_SWEEP_MINUTES // n == minute]


def with_net(keys: Sequence[Key], marks: dict[Key, dict], now: float | None = None) -> dict[Key, dict]:
    """``marks`` with this minute's share of the net (``net_due``) marked (not clearable): for a
    sweep that ticks every minute."""
    due = net_due(keys, now)
    return {**marks, **{k: marks.get(k) or _UNMARKED for k in due}} if due else marks


def with_every_partition(keys: Iterable[Key], marks: dict[Key, dict]) -> dict[Key, dict]:
    """``marks`` with every unmarked partition of ``keys`` marked (not clearable): the whole net in
    one run (a sweep whose ticks are minutes apart)."""
    return {k: marks.get(k) or _UNMARKED for k in keys}


def unread(keys: Iterable[Key]) -> dict[Key, dict]:
    """Every partition of ``keys`` to be queried because the markers could not be read."""
    return {k: _UNREAD for k in keys}


def found(marker: dict, key: Key, n: int) -> None:
    """A sweep found ``n`` items of work on ``key``'s partition: when the partition had no marker
    (the net's ``with_net``/``with_every_partition``), the marker was lost: WARNING + ``OccupancyMarkerMissed``."""
    if marker is _UNMARKED:
        missed(key, n)


def missed(key: Key, n: int) -> None:
    """``n`` items of work were found where the record that should announce them (a marker, a
    counter: ``key``) said none: WARNING + ``OccupancyMarkerMissed`` (nothing when ``n`` is 0)."""
    if n:
        from .observability import count, get_logger

        get_logger("lambdakit").warning("occupancy: work found on a partition without its marker",
                                        extra={"marker": f"{key[0]}/{key[1]}", "items": n})
        count("OccupancyMarkerMissed", n)


def clearable(marker: dict) -> bool:
    """Old enough for a sweep that finds its partition empty to delete it."""
    return float(marker.get("marked_at") or 0) < clock.now_ts() - CLEAR_AFTER_SECONDS


def clear(table: Table, key: Key, marker: dict) -> None:
    """Delete the marker if it is still the one read (``marker``); else it stays."""
    try:
        table.delete(*key, condition="marked_at = :m", values={":m": marker.get("marked_at")})
    except ConditionFailed:  # marked again since the read
        pass
