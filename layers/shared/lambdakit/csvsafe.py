"""Spreadsheet formula-injection neutralisation (OWASP CSV injection)."""
from __future__ import annotations

_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value):
    """Prefix a text cell that a spreadsheet would read as a formula with a single quote."""
    if isinstance(value, str) and value.startswith(_TRIGGERS):
        return "'" + value
    return value
