"""Occupancy markers of the dispatcher's outbox indexes (issue 21: a tick reads one BatchGetItem
of markers instead of querying every index partition, most of them empty).

A marker is one item (``marked_at``, epoch seconds) per index partition: the webhook relay's
eight shards (``WHRELAY#{0..7}``) and the bulk relay (``BULKRELAY``). A writer calls ``mark``
before it puts an item on (or moves an item within) the partition; the sweep reads the markers
(``read``, one consistent BatchGetItem), queries only the marked partitions, and deletes a
marker (``clear``) only when ``clearable`` and its partition was queried empty after the read.

Why no item is ever missed. ``mark`` writes ``marked_at`` (only ever raised, until deleted),
except when this process marked the same partition less than ``REUSE_SECONDS`` ago. So every
index write at ``t_i`` was preceded, at ``t_c >= t_i - WRITER_RUN_SECONDS`` (a Lambda run at
most), by a check that found or wrote ``marked_at >= t_c - REUSE_SECONDS``. The sweep clears only
a value older than ``CLEAR_AFTER_SECONDS`` (the sum of the three periods) at its read, on the
condition that the delete still finds that value. A write relying on that value therefore
happened more than ``INDEX_LAG_SECONDS`` before the read, so the query made after the read shows
its item (the index is eventually consistent within that time), unless the item has already
left the partition. A write relying on a newer mark changed ``marked_at``: the delete's
condition fails and the marker stays. Clocks: the Lambda hosts' (NTP-synchronised) wall clocks.

A net under those assumptions: once every ``FULL_SWEEP_MINUTES`` (the tick of a minute divisible
by it, ``full_sweep_due``) the sweep queries every partition whatever its marker says
(``with_every_partition``), and clears nothing then. An item whose marker was lost to an index lag
beyond ``INDEX_LAG_SECONDS`` (DynamoDB gives no bound) is therefore only delayed, by at most that
period, never stranded.
"""
from __future__ import annotations

import math

from lambdakit import clock
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed

from ..settings import settings

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
#: The marker ``with_every_partition`` gives an unmarked partition: queried, never clearable.
_UNMARKED: dict = {"marked_at": float("inf")}

Key = tuple[str, str]

#: Markers this process wrote (or found), and when (``clock.now_ts``); tied to the settings object
#: so a test's fresh table (settings are reset with it) starts with none.
_marked: dict[str, object] = {"owner": None, "at": {}}


def _table() -> Table:
    return Table(settings().table_name)


def _done() -> dict[Key, float]:
    owner = settings()
    if _marked["owner"] is not owner:
        _marked.update(owner=owner, at={})
    return _marked["at"]  # type: ignore[return-value]


def forget() -> None:
    """Forget what this process marked (what a new Lambda process knows)."""
    _marked.update(owner=None, at={})


def mark(key: Key, *, reuse: bool = True) -> None:
    """Mark the partition of ``key`` occupied, before an item is put on it (see the module).
    ``reuse=False``: write the marker whatever this process marked before (a writer whose every
    request is heavier than one more write, and whose calls stay the same from one to the next)."""
    now = clock.now_ts()
    done = _done()
    last = done.get(key)
    if reuse and last is not None and 0 <= now - last < REUSE_SECONDS:
        return
    at = math.ceil(now)
    try:
        _table().update(*key, set={"marked_at": at}, condition="attribute_not_exists(marked_at) OR marked_at < :at",
                        values={":at": at}, return_values="NONE")
    except ConditionFailed:  # marked as late or later by another writer
        pass
    done[key] = now


def read(keys: list[Key]) -> dict[Key, dict]:
    """The markers of ``keys`` that are set (one consistent BatchGetItem)."""
    return _table().get_many(keys, consistent=True)


def full_sweep_due(now: float | None = None) -> bool:
    """This minute's sweep queries every partition (one tick in ``FULL_SWEEP_MINUTES``)."""
    return int((clock.now_ts() if now is None else now) // 60) % FULL_SWEEP_MINUTES == 0


def with_every_partition(keys: list[Key], marks: dict[Key, dict]) -> dict[Key, dict]:
    """``marks`` with every unmarked partition of ``keys`` marked (not clearable): the full sweep."""
    return {k: marks.get(k) or _UNMARKED for k in keys}


def clearable(marker: dict) -> bool:
    """Old enough for a sweep that finds its partition empty to delete it."""
    return float(marker.get("marked_at") or 0) < clock.now_ts() - CLEAR_AFTER_SECONDS


def clear(key: Key, marker: dict) -> None:
    """Delete the marker if it is still the one read (``marker``); else it stays."""
    try:
        _table().delete(*key, condition="marked_at = :m", values={":m": marker.get("marked_at")})
    except ConditionFailed:  # marked again since the read
        pass
