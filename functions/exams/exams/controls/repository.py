"""Platform settings item and rate-limit counters.

Settings: pk=SETTINGS sk=PLATFORM {maintenance_mode, announcement_banner, registration_enabled,
updated_at, updated_by, version}. Read once per request (no in-process cache), so a PUT takes
effect on the very next request in every Lambda container: an authenticated request reads it with
the caller's profile (one BatchGetItem, ``exams.http``), others with one GetItem.
"""
from __future__ import annotations

from typing import Any

from lambdakit import clock, ratelimit
from lambdakit.ddb import Table

from ..settings import settings

SETTINGS_KEY = ("SETTINGS", "PLATFORM")


def table() -> Table:
    return Table(settings().table_name)


def get_settings() -> dict | None:
    return table().get(*SETTINGS_KEY)


def update_settings(changes: dict, *, before: dict | None) -> dict:
    """Set ``changes`` and bump ``version``; optimistic check against the item read before
    (``ConditionFailed`` when someone else wrote in between)."""
    names: dict[str, str] | None = {"#ver": "version"}
    values: dict[str, Any] | None = None
    if before is None:
        cond, names = "attribute_not_exists(pk)", None
    elif before.get("version") is None:
        cond = "attribute_not_exists(#ver)"
    else:
        cond, values = "#ver = :ver", {":ver": before["version"]}
    return table().update(*SETTINGS_KEY, set=changes, add={"version": 1}, condition=cond, names=names,
                          values=values)


def hit(subject: str, limit: int, window: int) -> ratelimit.RateDecision:
    return ratelimit.hit(table(), subject, limit, window)


# Windows of the paired check known used up in this process, as ``lambdakit.ratelimit`` keeps
# them: ``(kind, subject, window, start)``. Hits only grow inside a window, so refusing a used-up
# window without writing is exact.
_spent: set[tuple[str, str, int, int]] = set()


def can_pair(outer: tuple[int, int], inner: tuple[int, int]) -> bool:
    """Whether ``hit_pair`` can count both limits on the outer limit's window item: neither limit
    is write-sharded and the inner windows nest in the outer ones (fixed windows aligned to the
    epoch: every inner window lies inside one outer window exactly when its length divides the
    outer's)."""
    return (ratelimit.shards_for(outer[0]) == 1 and ratelimit.shards_for(inner[0]) == 1
            and outer[1] % inner[1] == 0)


def hit_pair(outer_name: str, outer: tuple[int, int], inner_name: str, inner: tuple[int, int], subject: str
             ) -> tuple[ratelimit.RateDecision, ratelimit.RateDecision | None]:
    """``lambdakit.ratelimit.hit`` of ``<outer_name>:<subject>`` and then (outer admitted) of
    ``<inner_name>:<subject>``, in ONE UpdateItem (``can_pair`` must hold): the inner count is an
    attribute of the outer window's item (``hits``, the very item ``hit`` counts the outer limit in,
    so requests counted by either function share it), one per inner window. Each limit is decided
    as ``hit`` decides it (admitted while the post-increment count is at most the limit) and the
    decisions are ``hit``'s. Unlike two calls, the inner counter is also incremented when the outer
    limit refuses; no decision sees that count: the inner window lies inside the outer one, whose
    later requests are all refused by the outer limit. Returns ``(outer, inner or None: not checked,
    the outer limit refused)``."""
    (o_limit, o_window), (i_limit, i_window) = outer, inner
    now = clock.now_ts()
    o_start = int(now // o_window) * o_window
    i_start = int(now // i_window) * i_window
    o_subject, i_subject = f"{outer_name}:{subject}", f"{inner_name}:{subject}"
    o_spent = ("o", o_subject, o_window, o_start) in _spent
    i_spent = ("i", i_subject, i_window, i_start) in _spent
    if len(_spent) > 1024:  # ended windows are never looked up again
        _spent.difference_update({k for k in list(_spent) if k[3] + k[2] <= now})
    if o_spent:
        return _decision(False, o_limit + 1, o_limit, o_window, o_start + o_window, now), None
    inner_attr = f"hits_{i_window}_{i_start}"
    add: dict[str, int | float] = {"hits": 1} if i_spent else {"hits": 1, inner_attr: 1}
    item = table().update(f"RL#{o_subject}", f"W#{o_window}#{o_start}", add=add,
                          set={"ttl": o_start + o_window + 60})
    o_got = int(item.get("hits", 1))
    if o_got > o_limit:
        _spent.add(("o", o_subject, o_window, o_start))
        return _decision(False, o_got, o_limit, o_window, o_start + o_window, now), None
    o_dec = _decision(True, o_got, o_limit, o_window, o_start + o_window, now)
    if i_spent:
        return o_dec, _decision(False, i_limit + 1, i_limit, i_window, i_start + i_window, now)
    i_got = int(item.get(inner_attr, 1))
    if i_got > i_limit:
        _spent.add(("i", i_subject, i_window, i_start))
    return o_dec, _decision(i_got <= i_limit, i_got, i_limit, i_window, i_start + i_window, now)


def _decision(allowed: bool, count: int, limit: int, window: int, reset: int, now: float
              ) -> ratelimit.RateDecision:
    """``lambdakit.ratelimit.hit``'s decision for an unsharded limit after a count of ``count``."""
    import math

    return ratelimit.RateDecision(allowed=allowed, limit=limit, remaining=max(0, limit - min(limit, count)),
                                  reset_at=reset, retry_after=max(1, math.ceil(reset - now)), window=window)
