"""EventBridge ``Schedule``/``ScheduleV2`` expressions: ``rate(...)``, ``cron(...)``, ``at(...)``.

``Schedule.due(minute)`` says whether a schedule fires at a given UTC minute; the
scheduler thread of the local runtime asks it once per minute.
AWS cron has six fields: minutes hours day-of-month month day-of-week year, with
``?`` for "any", ``L`` (last day of month), ``W`` is not supported, ``#`` (nth weekday)
is. Day-of-week 1-7 is SUN-SAT.
"""
from __future__ import annotations

import calendar
import datetime as dt
import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

MONTHS = {m.upper(): i for i, m in enumerate(calendar.month_abbr) if m}
DAYS = {"SUN": 1, "MON": 2, "TUE": 3, "WED": 4, "THU": 5, "FRI": 6, "SAT": 7}
RATE_UNITS = {"minute": 60, "minutes": 60, "hour": 3600, "hours": 3600, "day": 86400, "days": 86400}


class ScheduleError(ValueError):
    pass


def _field(expr: str, lo: int, hi: int, names: dict[str, int] | None = None) -> set[int]:
    out: set[int] = set()
    for part in expr.split(","):
        part = part.strip().upper()
        for n, v in (names or {}).items():
            part = re.sub(rf"\b{n}\b", str(v), part)
        step = 1
        if "/" in part:
            part, s = part.split("/", 1)
            step = int(s)
            if step < 1:
                raise ScheduleError(f"bad step in {expr!r}")
        if part in ("*", "?"):
            a, b = lo, hi
        elif "-" in part:
            x, y = part.split("-", 1)
            a, b = int(x), int(y)
        else:
            a = int(part)
            b = hi if step > 1 else a
        if not (lo <= a <= hi and lo <= b <= hi):
            raise ScheduleError(f"value out of range in {expr!r}")
        if a <= b:
            out.update(range(a, b + 1, step))
        else:  # wrap-around range, e.g. FRI-MON
            out.update(x for i, x in enumerate([*range(a, hi + 1), *range(lo, b + 1)]) if i % step == 0)
    return out


@dataclass
class Cron:
    minutes: set[int]
    hours: set[int]
    dom: str
    months: set[int]
    dow: str
    years: set[int] | None

    @classmethod
    def parse(cls, text: str) -> Cron:
        parts = text.split()
        if len(parts) != 6:
            raise ScheduleError(f"cron needs 6 fields: {text!r}")
        mi, h, dom, mo, dow, yr = parts
        if dom != "?" and dow != "?":
            raise ScheduleError("one of day-of-month and day-of-week must be '?'")
        c = cls(_field(mi, 0, 59), _field(h, 0, 23), dom.upper(), _field(mo, 1, 12, MONTHS), dow.upper(),
                None if yr in ("*", "?") else _field(yr, 1970, 2199))
        c._day_ok(dt.datetime(2024, 1, 1))  # validate day fields
        return c

    def _day_ok(self, t: dt.datetime) -> bool:
        if self.dom not in ("?", "*"):
            last = calendar.monthrange(t.year, t.month)[1]
            if self.dom == "L":
                return t.day == last
            if "W" in self.dom:
                raise ScheduleError("W is not supported locally")
            return t.day in _field(self.dom, 1, 31)
        if self.dow not in ("?", "*"):
            aws_dow = (t.isoweekday() % 7) + 1  # SUN=1 ... SAT=7
            if "#" in self.dow:
                day, nth = self.dow.split("#", 1)
                return aws_dow == _field(day, 1, 7, DAYS).pop() and (t.day - 1) // 7 + 1 == int(nth)
            if self.dow.endswith("L") and len(self.dow) > 1:
                last_dow = _field(self.dow[:-1], 1, 7, DAYS).pop()
                return aws_dow == last_dow and t.day + 7 > calendar.monthrange(t.year, t.month)[1]
            return aws_dow in _field(self.dow, 1, 7, DAYS)
        return True

    def matches(self, t: dt.datetime) -> bool:
        return (t.minute in self.minutes and t.hour in self.hours and t.month in self.months
                and (self.years is None or t.year in self.years) and self._day_ok(t))


@dataclass
class Schedule:
    """One schedule event of one function."""

    function: str  # logical id
    name: str  # event name in the template
    expression: str
    input: Any = None  # parsed Input, or None
    timezone: str = "UTC"
    v2: bool = False
    enabled: bool = True
    start: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.timezone.utc).replace(second=0,
                                                                                                  microsecond=0))
    _cron: Cron | None = field(default=None, repr=False)
    _rate: int | None = field(default=None, repr=False)
    _at: dt.datetime | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        e = self.expression.strip()
        m = re.fullmatch(r"rate\(\s*(\d+)\s+(\w+)\s*\)", e)
        if m:
            n, unit = int(m.group(1)), m.group(2).lower()
            if unit not in RATE_UNITS or n < 1 or (n == 1) != (not unit.endswith("s")):
                raise ScheduleError(f"bad rate: {e!r}")
            self._rate = n * RATE_UNITS[unit]
            return
        m = re.fullmatch(r"cron\((.*)\)", e)
        if m:
            self._cron = Cron.parse(m.group(1))
            return
        m = re.fullmatch(r"at\((\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\)", e)
        if m:
            self._at = dt.datetime.fromisoformat(m.group(1))
            return
        raise ScheduleError(f"unsupported schedule expression: {e!r}")

    def _local(self, t: dt.datetime) -> dt.datetime:
        if self.timezone and self.timezone != "UTC":
            from zoneinfo import ZoneInfo

            return t.astimezone(ZoneInfo(self.timezone)).replace(tzinfo=None)
        return t.astimezone(dt.timezone.utc).replace(tzinfo=None)

    def due(self, minute: dt.datetime) -> bool:
        """Does it fire at this (UTC, whole) minute?"""
        if not self.enabled:
            return False
        if self._rate is not None:
            elapsed = int((minute - self.start).total_seconds())
            return elapsed > 0 and elapsed % self._rate == 0
        local = self._local(minute)
        if self._cron is not None:
            return self._cron.matches(local)
        return self._at is not None and local.replace(second=0) == self._at.replace(second=0)

    def event(self, now: dt.datetime | None = None) -> Any:
        """The payload the function receives: the ``Input`` if set, else the scheduled event."""
        if self.input is not None:
            return self.input
        if self.v2:
            return {}
        t = (now or dt.datetime.now(dt.timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return {"version": "0", "id": str(uuid.uuid4()), "detail-type": "Scheduled Event", "source": "aws.events",
                "account": "123456789012", "time": t, "region": "us-east-1",
                "resources": [f"arn:aws:events:us-east-1:123456789012:rule/{self.function}-{self.name}"],
                "detail": {}}


def schedules_of(fn: Any) -> list[Schedule]:
    """The ``Schedule``/``ScheduleV2`` events of a ``stack.Function``."""
    out = []
    for name, ev in (fn.events or {}).items():
        t = ev.get("Type")
        if t not in ("Schedule", "ScheduleV2"):
            continue
        p = ev.get("Properties") or {}
        v2 = t == "ScheduleV2"
        expr = p.get("ScheduleExpression") if v2 else p.get("Schedule")
        raw = p.get("Input")
        enabled = (p.get("State", "ENABLED") == "ENABLED") if v2 else bool(p.get("Enabled", True))
        out.append(Schedule(function=fn.logical_id, name=name, expression=str(expr),
                            input=json.loads(raw) if isinstance(raw, str) else raw,
                            timezone=p.get("ScheduleExpressionTimezone", "UTC") if v2 else "UTC",
                            v2=v2, enabled=enabled))
    return out
