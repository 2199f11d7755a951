"""Cutting a sequence into batches bounded by count and by size (SQS messages, item snapshots)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def runs(items: Sequence[T], *, most: int, max_bytes: int, size_of: Callable[[T], int]) -> list[list[T]]:
    """Consecutive runs of at most ``most`` items whose ``size_of`` sum stays within ``max_bytes``
    (an item larger than ``max_bytes`` is a run of its own), in order."""
    out: list[list[T]] = []
    cur: list[T] = []
    used = 0
    for item in items:
        n = size_of(item)
        if cur and (len(cur) >= most or used + n > max_bytes):
            out.append(cur)
            cur, used = [], 0
        cur.append(item)
        used += n
    if cur:
        out.append(cur)
    return out
