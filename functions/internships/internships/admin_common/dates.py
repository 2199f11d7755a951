"""Date-range filters (``date_from``/``date_to``) turned into sort-key bounds."""
from __future__ import annotations

from lambdakit import clock
from lambdakit.errors import ValidationFailed


def _parse(name: str, value: str):
    try:
        return clock.parse_iso(value)
    except ValueError:
        raise ValidationFailed(f"{name} must be an ISO 8601 date", fields={name: "Invalid date"}) from None


def iso_bounds(date_from: str | None, date_to: str | None, *, from_name: str = "date_from",
               to_name: str = "date_to") -> tuple[str, str] | None:
    """Inclusive ``(low, high)`` bounds for sort keys that start with an ISO timestamp.
    A bare date as ``date_to`` covers that whole day. ``None`` when neither is given."""
    if not date_from and not date_to:
        return None
    low = clock.iso(_parse(from_name, date_from)) if date_from else "0000"
    if date_to:
        hi = _parse(to_name, date_to)
        high = (hi.strftime("%Y-%m-%d") + "T23:59:59.999Z") if len(date_to.strip()) <= 10 else clock.iso(hi)
        high += "~"  # sorts after '#<id>' suffixes
    else:
        high = "9999"
    if low > high:
        raise ValidationFailed(f"{from_name} must not be after {to_name}", fields={from_name: "After date_to"})
    return low, high
