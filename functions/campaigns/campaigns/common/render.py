"""``{{variable}}`` placeholders in subjects and bodies.

``render(text, variables, html=True)`` replaces each ``{{ name }}`` (spaces inside the
braces allowed; names are letters, digits, ``_``, ``-`` and ``.``; a dotted name also
looks into nested objects) with its value. Values are HTML-escaped when ``html`` is
true. Placeholders without a value (absent or null) render as empty and are reported,
in first-appearance order, as the second element of the result.
"""
from __future__ import annotations

import html as _html
import re
from typing import Any

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.\-]*)\s*\}\}")


def placeholders(text: str | None) -> list[str]:
    """Distinct placeholder names in first-appearance order."""
    return list(dict.fromkeys(PLACEHOLDER.findall(text or "")))


def _lookup(variables: dict[str, Any], name: str) -> Any:
    if name in variables:
        return variables[name]
    cur: Any = variables
    for part in name.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def render(template: str | None, variables: dict[str, Any] | None, *, html: bool) -> tuple[str, list[str]]:
    """Rendered text and the names of placeholders that had no value."""
    variables = variables or {}
    missing: list[str] = []

    def sub(m: re.Match) -> str:
        name = m.group(1)
        value = _lookup(variables, name)
        if value is None:
            if name not in missing:
                missing.append(name)
            return ""
        s = _text(value)
        return _html.escape(s, quote=True) if html else s

    return PLACEHOLDER.sub(sub, template or ""), missing
