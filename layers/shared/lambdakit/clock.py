"""One source of time, so tests can move it (``clock.set_offset``)."""
from __future__ import annotations

import datetime as _dt
import time as _time

_offset_seconds: float = 0.0


def set_offset(seconds: float) -> None:
    """Shift the service clock (tests and the local runtime only)."""
    global _offset_seconds
    _offset_seconds = seconds


def now_ts() -> float:
    return _time.time() + _offset_seconds


def now() -> _dt.datetime:
    return _dt.datetime.fromtimestamp(now_ts(), tz=_dt.timezone.utc)


def iso(dt: _dt.datetime | None = None) -> str:
    """ISO 8601 UTC with milliseconds and a Z suffix."""
    dt = dt or now()
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=_dt.timezone.utc)
    return dt.astimezone(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def now_iso() -> str:
    return iso(now())


def parse_iso(value: str) -> _dt.datetime:
    """Parse an ISO 8601 timestamp or date; naive values are taken as UTC."""
    v = value.strip()
    if v.endswith("Z") or v.endswith("z"):
        v = v[:-1] + "+00:00"
    dt = _dt.datetime.fromisoformat(v)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=_dt.timezone.utc)
    return dt.astimezone(_dt.timezone.utc)


def today() -> str:
    return now().strftime("%Y-%m-%d")
