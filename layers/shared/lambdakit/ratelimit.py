"""Fixed-window rate limiting with atomic DynamoDB counters (correct across Lambdas).

One item per (subject, window start); ``ADD`` increments it atomically and a TTL
removes it after the window. A request is admitted while the post-increment count
is at most the limit, so no more than ``limit`` requests are ever admitted per window.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from . import clock
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


def hit(table: Table, subject: str, limit: int, window_seconds: int, *, cost: int = 1) -> RateDecision:
    now = clock.now_ts()
    start = int(now // window_seconds) * window_seconds
    reset = start + window_seconds
    item = table.update(
        f"RL#{subject}", f"W#{window_seconds}#{start}",
        add={"hits": cost}, set={"ttl": reset + 60},
    )
    count = int(item.get("hits", cost))
    allowed = count <= limit
    return RateDecision(
        allowed=allowed, limit=limit, remaining=max(0, limit - count), reset_at=reset,
        retry_after=max(1, math.ceil(reset - now)), window=window_seconds,
    )
