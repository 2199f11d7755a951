"""Question-bank interchange formats (issue 34): Moodle XML, GIFT, Aiken and QTI 3.0.

Each format is a module with ``parse(data) -> Parsed`` (items in the same shape as a CSV row after
parsing, for the shared validation and write in ``questions.service``) and ``export(questions) ->
bytes``. Only the requested format's module is imported (cold starts). docs/exams-interchange.md.
"""
from __future__ import annotations

import importlib
from typing import Any

from .common import Parsed, Unexportable

FORMATS: dict[str, tuple[str, str, str]] = {
    # name: (module, content type, file extension)
    "moodle_xml": ("moodle", "application/xml", "xml"),
    "gift": ("gift", "text/plain; charset=utf-8", "gift.txt"),
    "aiken": ("aiken", "text/plain; charset=utf-8", "aiken.txt"),
    "qti3": ("qti", "application/zip", "qti3.zip"),
}

__all__ = ["FORMATS", "Parsed", "Unexportable", "export", "parse"]


def _module(fmt: str) -> Any:
    return importlib.import_module(f"{__name__}.{FORMATS[fmt][0]}")


def parse(fmt: str, data: bytes) -> Parsed:
    """Pass 1 of an import in ``fmt``: every item mapped onto our fields, or an error for it."""
    return _module(fmt).parse(data)  # type: ignore[no-any-return]


def export(fmt: str, questions: list[dict], *, title: str) -> tuple[bytes, str, str]:
    """(body, content type, file extension). ``Unexportable`` lists the questions the format cannot carry."""
    _, ctype, ext = FORMATS[fmt]
    return _module(fmt).export(questions, title=title), ctype, ext
