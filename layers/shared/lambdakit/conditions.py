"""Filter conditions for ``Table.query`` without the boto3 package (issue 21: importing
``boto3.dynamodb.conditions`` imports ``boto3``, and with it ``s3transfer`` and ``multiprocessing``,
15-20 ms of a cold first request; docs/platform.md, "Clients without the boto3 package").

The condition API of ``boto3.dynamodb.conditions`` rewritten (``Attr(name).eq(v)``, ``&``, ``|``,
``~``...), built by ``build`` into the same expression as boto3's ``ConditionExpressionBuilder``:
the same operators, every ``AND``/``OR``/``NOT`` in parentheses as boto3 writes it, the same
names split into placeholders (``Attr("a.b")`` is the nested path ``a`` → ``b``; ``a[0]`` an
index, kept as written), the same values; only the placeholders differ (the caller's, e.g.
``#fn0``/``:fv1`` of ``lambdakit.ddb``). Checked against boto3 over a generated corpus
(tests/platform/test_conditions.py).

Wrong use raises a ``TypeError`` with boto3's wording (``&`` of an attribute, or of a condition and
anything else; a filter that is not a condition, boto3's own conditions included).
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Protocol

__all__ = ["Attr", "Condition", "Placeholders", "Size", "all_of", "any_of", "build"]

#: boto3's ``ATTR_NAME_REGEX``: the names of a path (dots separate them, ``[n]`` indexes stay)
_NAME_PART = re.compile(r"[^.\[\]]+(?![^\[]*\])")


class Placeholders(Protocol):
    """Where ``build`` puts names and values (``lambdakit.ddb._Expr``): each call returns the
    placeholder standing for it."""

    def name(self, attr: str) -> str: ...

    def value(self, v: Any) -> str: ...


def _not_supported(operation: str, value: Any) -> TypeError:
    return TypeError(f"{operation} operation cannot be applied to value {value!r} of type {type(value)} directly. "
                     f"Must use Attr methods (i.e. Attr().eq()) to make conditions first.")


class Condition:
    """A condition: a format (``{0} = {1}``, ``({0} AND {1})``...) and its operands (attributes,
    conditions, values). Combine with ``&`` (AND), ``|`` (OR), ``~`` (NOT)."""

    __slots__ = ("_format", "_operands", "_grouped")

    def __init__(self, format: str, *operands: Any, grouped: bool = False) -> None:
        self._format = format
        self._operands = operands
        self._grouped = grouped  # IN: each member of the value its own placeholder

    def __and__(self, other: Any) -> Condition:
        if not isinstance(other, Condition):
            raise _not_supported("AND", other)
        return Condition("({0} AND {1})", self, other)

    def __or__(self, other: Any) -> Condition:
        if not isinstance(other, Condition):
            raise _not_supported("OR", other)
        return Condition("({0} OR {1})", self, other)

    def __invert__(self) -> Condition:
        return Condition("(NOT {0})", self)

    def __repr__(self) -> str:
        return f"Condition({self._format!r}, {', '.join(map(repr, self._operands))})"

    def _build(self, p: Placeholders) -> str:
        parts = []
        for op in self._operands:
            if isinstance(op, (Condition, _Operand)):
                parts.append(op._build(p))
            elif self._grouped:
                parts.append(f"({', '.join(p.value(v) for v in op)})")
            else:
                parts.append(p.value(op))
        return self._format.format(*parts)


class _Operand:
    """What a condition compares: an attribute, or the size of one."""

    __slots__ = ()

    def __and__(self, other: Any) -> Condition:
        raise _not_supported("AND", self)

    def __or__(self, other: Any) -> Condition:
        raise _not_supported("OR", self)

    def __invert__(self) -> Condition:
        raise _not_supported("NOT", self)

    def _build(self, p: Placeholders) -> str:
        raise NotImplementedError

    def eq(self, value: Any) -> Condition:
        return Condition("{0} = {1}", self, value)

    def ne(self, value: Any) -> Condition:
        return Condition("{0} <> {1}", self, value)

    def lt(self, value: Any) -> Condition:
        return Condition("{0} < {1}", self, value)

    def lte(self, value: Any) -> Condition:
        return Condition("{0} <= {1}", self, value)

    def gt(self, value: Any) -> Condition:
        return Condition("{0} > {1}", self, value)

    def gte(self, value: Any) -> Condition:
        return Condition("{0} >= {1}", self, value)

    def begins_with(self, value: Any) -> Condition:
        return Condition("begins_with({0}, {1})", self, value)

    def between(self, low_value: Any, high_value: Any) -> Condition:
        return Condition("{0} BETWEEN {1} AND {2}", self, low_value, high_value)


class Attr(_Operand):
    """An item's attribute: ``Attr("status").eq("active")``; a value may itself be an ``Attr``
    (two attributes compared)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"an attribute name is a str, not {type(name)}")
        self.name = name

    def __repr__(self) -> str:
        return f"Attr({self.name!r})"

    def _build(self, p: Placeholders) -> str:
        return _NAME_PART.sub(lambda m: p.name(m.group()), self.name)

    def is_in(self, value: Iterable[Any]) -> Condition:
        return Condition("{0} IN {1}", self, value, grouped=True)

    def exists(self) -> Condition:
        return Condition("attribute_exists({0})", self)

    def not_exists(self) -> Condition:
        return Condition("attribute_not_exists({0})", self)

    def contains(self, value: Any) -> Condition:
        return Condition("contains({0}, {1})", self, value)

    def attribute_type(self, value: str) -> Condition:
        return Condition("attribute_type({0}, {1})", self, value)

    def size(self) -> Size:
        return Size(self)


class Size(_Operand):
    """``size(attr)``, compared like an attribute: ``Attr("tags").size().gt(2)``."""

    __slots__ = ("attr",)

    def __init__(self, attr: Attr) -> None:
        self.attr = attr

    def __repr__(self) -> str:
        return f"{self.attr!r}.size()"

    def _build(self, p: Placeholders) -> str:
        return f"size({self.attr._build(p)})"


def build(condition: Condition, placeholders: Placeholders) -> str:
    """The expression of ``condition``, its names and values given to ``placeholders`` in the
    order they appear."""
    if not isinstance(condition, Condition):
        raise TypeError(f"Expecting a lambdakit.conditions condition. Got {condition!r} of type {type(condition)}. "
                        f"Use Attr methods (i.e. Attr().eq()) to make conditions.")
    return condition._build(placeholders)


def all_of(conditions: Iterable[Condition | None]) -> Condition | None:
    """The AND of ``conditions`` (``None`` entries skipped), ``None`` when none is left: a filter
    built from optional parts."""
    return _fold(conditions, Condition.__and__)


def any_of(conditions: Iterable[Condition | None]) -> Condition | None:
    """The OR of ``conditions`` (``None`` entries skipped), ``None`` when none is left."""
    return _fold(conditions, Condition.__or__)


def _fold(conditions: Iterable[Condition | None], join: Callable[[Condition, Condition], Condition]) -> Condition | None:
    out: Condition | None = None
    for c in conditions:
        if c is not None:
            out = c if out is None else join(out, c)
    return out
