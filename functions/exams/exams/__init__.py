"""Online examination service. One package per domain; each handler module is one Lambda.

``frozen``: the service's immutable value classes (see its docstring) - here, at the root, so that
every layer of the package may use it (tools/importlinter/exams.ini places every module below it).
"""
from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Any, TypeVar, dataclass_transform

VERSION = "1.0.0"
SERVICE = "exams"
NAME = "Online Examination Service"

_C = TypeVar("_C", bound=type)


@dataclass_transform(frozen_default=True)
def frozen(cls: _C) -> _C:
    """``@dataclass(frozen=True)`` without its code generation (issue 21, cold first request).

    ``dataclasses`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and
    ``__setattr__``/``__delattr__`` as source text and compiles it with ``exec`` when the class is
    defined: about 0.7 ms per class, paid by every cold start for every value class its imports
    define (the authentication path alone has seven). These methods are shared closures over the
    field names instead. Same behaviour for the class's users: fields are the class's own
    annotations in order, a class attribute is the field's default (no ``field()``, no inheritance
    between value classes), positional or keyword construction with the same ``TypeError``s,
    ``repr`` ``Name(a=1, b='x')``, equality and hash over the fields (instances of the same class
    only), and assigning or deleting an attribute raises ``dataclasses.FrozenInstanceError``.
    """
    own = cls.__dict__.get("__annotations__", {})
    names = tuple(n for n, a in own.items() if not str(a).startswith(("ClassVar", "typing.ClassVar")))
    defaults = {n: cls.__dict__[n] for n in names if n in cls.__dict__}
    seen_default = False
    for n in names:
        if n in defaults:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {n!r} follows default argument")
    known = frozenset(names)
    qual = f"{cls.__name__}.__init__()"

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names):
            raise TypeError(f"{qual} takes {len(names) + 1} positional arguments but {len(args) + 1} were given")
        values = dict(zip(names, args, strict=False))
        for k, v in kwargs.items():
            if k not in known:
                raise TypeError(f"{qual} got an unexpected keyword argument {k!r}")
            if k in values:
                raise TypeError(f"{qual} got multiple values for argument {k!r}")
            values[k] = v
        if len(values) < len(names):
            missing = [n for n in names if n not in values and n not in defaults]
            if missing:
                raise TypeError(f"{qual} missing {len(missing)} required argument(s): "
                                + ", ".join(repr(m) for m in missing))
            values = {n: values[n] if n in values else defaults[n] for n in names}
        self.__dict__.update(values)

    def _fields(self: Any) -> tuple:
        d = self.__dict__
        return tuple(d[n] for n in names)

    def __repr__(self: Any) -> str:
        d = self.__dict__
        return f"{type(self).__qualname__}(" + ", ".join(f"{n}={d[n]!r}" for n in names) + ")"

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return _fields(self) == _fields(other)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(_fields(self))

    def __setattr__(self: Any, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self: Any, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    for fn in (__init__, __repr__, __eq__, __hash__, __setattr__, __delattr__):
        fn.__qualname__ = f"{cls.__qualname__}.{fn.__name__}"
        setattr(cls, fn.__name__, fn)
    setattr(cls, "__match_args__", names)  # noqa: B010 - mypy refuses a direct assignment on type
    return cls
