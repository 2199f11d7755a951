"""Spreadsheet formula-injection neutralisation (OWASP CSV injection), the ONE neutraliser of
every CSV and XLSX cell the three services write, header cells included.

Rule (OWASP "CSV Injection"): a text cell a spreadsheet could evaluate gets a leading single
quote, so it is shown as text. A cell is dangerous when

* it starts with ``=``, ``+``, ``-``, ``@``, TAB or CR (after any leading spaces), or
* a formula starts after a field separator inside it: ``,``, ``;``, TAB, CR or LF followed
  (after any spaces) by one of those characters. A spreadsheet that splits the cell on that
  separator (an import with another delimiter or locale) would evaluate the second part, so
  every such embedded start is escaped with a quote too (``a;=1+1`` → ``'a;'=1+1``).

Numbers, booleans and ``None`` pass unchanged (a spreadsheet does not evaluate them).
``writer(...)`` wraps ``csv.writer`` so that every row, the header included, goes through
``neutralise_row``; ``neutralise_row`` serves XLSX rows (openpyxl reads a leading ``=`` as a
formula).
"""
from __future__ import annotations

import csv
import re
from typing import Any, Iterable

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
SEPARATORS = (",", ";", "\t", "\r", "\n")
# a formula start right after a separator (spaces allowed in between)
_EMBEDDED = re.compile(r"([,;\t\r\n] *)(?=[=+\-@\t\r])")
_LEADING = re.compile(r"^ *[=+\-@\t\r]")


def is_dangerous(value: Any) -> bool:
    return isinstance(value, str) and bool(_LEADING.match(value) or _EMBEDDED.search(value))


def neutralise(value: Any) -> Any:
    """``value`` safe to put in a spreadsheet cell (see the module rule)."""
    if not isinstance(value, str) or not is_dangerous(value):
        return value
    out = _EMBEDDED.sub(lambda m: m.group(1) + "'", value)
    return "'" + out


def neutralise_row(cells: Iterable[Any]) -> list[Any]:
    return [neutralise(c) for c in cells]


class _SafeWriter:
    """``csv.writer`` whose every row goes through ``neutralise_row``."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._inner.writerow(neutralise_row(row))

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for r in rows:
            self.writerow(r)


def writer(fileobj: Any, **kw: Any) -> _SafeWriter:
    """``csv.writer(fileobj, **kw)`` with every cell neutralised (headers included)."""
    return _SafeWriter(csv.writer(fileobj, **kw))
