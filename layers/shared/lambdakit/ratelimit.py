"""Fixed-window rate limiting with atomic DynamoDB counters (correct across Lambdas).

One item per (subject, window start); ``ADD`` increments it atomically and a TTL
removes it after the window. A request is admitted while the post-increment count
is at most the limit, so no more than ``limit`` requests are ever admitted per window.

A limit high enough to make its window item hot is write-sharded with per-shard budgets that
sum to the limit (``hit``: exact, never over-admits), and a used-up window is remembered in the
process so refused floods do not write (issue #21 part 2).

Two limits on one subject whose windows nest (a route's strict limit inside the global one) can be
counted in ONE UpdateItem (``hit_pair``): the inner count is an attribute of the outer window's item.
"""
from __future__ import annotations

import math
import secrets
from dataclasses import dataclass

from . import clock, shards
from .ddb import Table


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    limit: int
    remaining: int
    reset_at: int  # epoch seconds when the window ends
    retry_after: int  # seconds until the window ends
    window: int  # window length in seconds

    def headers(self) -> dict[str, str]:
        h = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset_at),
        }
        if not self.allowed:
            h["Retry-After"] = str(self.retry_after)
        return h


WINDOWS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}


def parse_rate(spec: str) -> tuple[int, int]:
    """``"100/minute"`` → ``(100, 60)``; also accepts ``15minutes`` style (``"100/15minutes"``)."""
    count, _, unit = spec.strip().partition("/")
    n = int(count)
    unit = unit.strip().lower()
    mult = 1
    digits = ""
    while unit and unit[0].isdigit():
        digits += unit[0]
        unit = unit[1:]
    if digits:
        mult = int(digits)
    unit = unit.rstrip("s") if unit not in WINDOWS else unit
    if unit not in WINDOWS or n < 1:
        raise ValueError(f"bad rate: {spec!r}")
    return n, WINDOWS[unit] * mult


#: A limit is sharded only when one window can admit more than this many writes (``limit / cost``):
#: below it the window item cannot take more than 1,000 admitted writes per window, and refused
#: requests of a used-up window do not write (``_spent``), so even a burst stays at the ceiling's
#: order for at most the one second it takes to use the limit up. Keeps ``X-RateLimit-Remaining``
#: exact for the plan limits (100 and 1,000 per minute).
SHARD_ABOVE = 1000
#: Smallest per-shard budget (in requests): fewer, larger shards waste less of the limit near its end.
MIN_SHARD_BUDGET = 50
#: Shards tried per request before it is refused (each try is one write).
PROBES = 2

# Windows known to be used up in this process: ``(table, subject, window, start, shard)``. Hits
# only grow inside a window, so once a shard's count passed its budget every later hit there is
# refused too: refusing without writing is exact, and it keeps a flood of refused requests off
# the window item. Entries die with the window (pruned as new windows start).
_spent: set[tuple[str, str, int, int, int]] = set()


def forget() -> None:
    """Drop the in-process knowledge of used-up windows (tests reset the tables under it)."""
    _spent.clear()


def shards_for(limit: int, cost: int = 1) -> int:
    """Shards of a limit: 1 unless a window can admit more than ``SHARD_ABOVE`` writes; then one
    shard per ``lambdakit.shards.PER_SHARD_WRITES`` admitted writes (a whole window's budget used
    in one second still keeps each shard far under the partition ceiling), each shard keeping a
    budget of at least ``MIN_SHARD_BUDGET`` requests."""
    writes = limit / max(1, cost)
    if writes <= SHARD_ABOVE:
        return 1
    return max(1, min(shards.shard_count(writes), int(writes // MIN_SHARD_BUDGET)))


def budget(limit: int, n_shards: int, shard: int) -> int:
    """Per-shard budgets sum exactly to ``limit``: no window admits more than ``limit``."""
    return limit // n_shards + (1 if shard < limit % n_shards else 0)


def hit(table: Table, subject: str, limit: int, window_seconds: int, *, cost: int = 1) -> RateDecision:
    """Count one request (of ``cost``) against ``limit`` per fixed window; admitted at most ``limit``.

    Sharded limits (see :func:`shards_for`) split the limit into per-shard budgets that sum to it;
    a request adds to a random shard and, when that shard is used up, to one more. Never more than
    ``limit`` is admitted; the trade-off is that a request can be refused while another shard still
    has a little budget (at most ``PROBES`` tries), i.e. up to a few percent of the limit near its
    end goes unused. ``remaining`` is then an estimate (the tried shard's share scaled up)."""
    now = clock.now_ts()
    start = int(now // window_seconds) * window_seconds
    reset = start + window_seconds
    n = shards_for(limit, cost)
    base = (table.name, subject, window_seconds, start)
    if len(_spent) > 1024:  # ended windows are never looked up again
        _spent.difference_update({k for k in list(_spent) if k[3] + k[2] <= now})
    order = [i for i in _order(n) if (*base, i) not in _spent][:PROBES]
    count = limit + cost  # every shard known used up: refused without a write
    allowed = False
    share = limit
    for i in order:
        pk, sk = shards.shard_key(f"RL#{subject}", f"W#{window_seconds}#{start}", i)
        item = table.update(pk, sk, add={"hits": cost}, set={"ttl": reset + 60})
        share = budget(limit, n, i)
        got = int(item.get("hits", cost))
        if got <= share:
            allowed, count = True, got
            break
        _spent.add((*base, i))
        count = got
    used = limit if not allowed and n > 1 else min(limit, count * limit // max(1, share))
    return RateDecision(
        allowed=allowed, limit=limit, remaining=max(0, limit - used), reset_at=reset,
        retry_after=max(1, math.ceil(reset - now)), window=window_seconds,
    )


def can_pair(outer: tuple[int, int], inner: tuple[int, int]) -> bool:
    """Whether ``hit_pair`` can count both ``(limit, window)`` limits on the outer window's item:
    neither is write-sharded and the inner windows nest in the outer ones (fixed windows aligned to
    the epoch: every inner window lies inside one outer window exactly when its length divides the
    outer's)."""
    return shards_for(outer[0]) == 1 and shards_for(inner[0]) == 1 and outer[1] % inner[1] == 0


def hit_pair(table: Table, outer_subject: str, outer: tuple[int, int], inner_subject: str,
             inner: tuple[int, int]) -> tuple[RateDecision, RateDecision | None]:
    """``hit(outer_subject, *outer)`` and then, the outer limit admitting, ``hit(inner_subject,
    *inner)``, in ONE UpdateItem (``can_pair`` must hold). The inner count is an attribute of the
    outer window's item (``hits``, the very item ``hit`` counts the outer limit in, so requests
    counted by either share it), one attribute per inner window. Each limit is decided as ``hit``
    decides it (admitted while the post-increment count is at most the limit). Unlike two calls,
    the inner counter is also incremented when the outer limit refuses; no decision sees that
    count: the inner window lies inside the outer one, whose later requests the outer limit all
    refuses. Returns ``(outer, inner or None when the outer limit refused)``."""
    (o_limit, o_window), (i_limit, i_window) = outer, inner
    now = clock.now_ts()
    o_start = int(now // o_window) * o_window
    i_start = int(now // i_window) * i_window
    o_base = (table.name, outer_subject, o_window, o_start, 0)
    i_base = (table.name, f"{inner_subject}@{outer_subject}", i_window, i_start, 0)
    if len(_spent) > 1024:  # ended windows are never looked up again
        _spent.difference_update({k for k in list(_spent) if k[3] + k[2] <= now})
    if o_base in _spent:
        return _unsharded(False, o_limit + 1, o_limit, o_window, o_start, now), None
    i_spent = i_base in _spent
    inner_attr = f"hits_{i_window}_{i_start}"
    add: dict[str, int | float] = {"hits": 1} if i_spent else {"hits": 1, inner_attr: 1}
    item = table.update(f"RL#{outer_subject}", f"W#{o_window}#{o_start}", add=add,
                        set={"ttl": o_start + o_window + 60})
    o_got = int(item.get("hits", 1))
    if o_got > o_limit:
        _spent.add(o_base)
        return _unsharded(False, o_got, o_limit, o_window, o_start, now), None
    if i_spent:
        i_got = i_limit + 1
    else:
        i_got = int(item.get(inner_attr, 1))
        if i_got > i_limit:
            _spent.add(i_base)
    return (_unsharded(True, o_got, o_limit, o_window, o_start, now),
            _unsharded(i_got <= i_limit, i_got, i_limit, i_window, i_start, now))


def _unsharded(allowed: bool, count: int, limit: int, window: int, start: int, now: float) -> RateDecision:
    """``hit``'s decision for an unsharded limit after a count of ``count``."""
    reset = start + window
    return RateDecision(allowed=allowed, limit=limit, remaining=max(0, limit - min(limit, count)),
                        reset_at=reset, retry_after=max(1, math.ceil(reset - now)), window=window)


def _order(n: int) -> list[int]:
    if n == 1:
        return [0]
    first = shards.pick(n)
    return [first] + [i for i in secrets.SystemRandom().sample(range(n), n) if i != first]
