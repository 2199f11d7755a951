"""DynamoDB's typed JSON (``{"S": "x"}``, ``{"N": "1"}``...) to and from Python without the boto3
package (issue 21: importing ``boto3`` costs ≈ 15 ms of a cold first request; docs/platform.md,
"Clients without the boto3 package").

``serialize``/``deserialize`` are ``boto3.dynamodb.types.TypeSerializer().serialize`` /
``TypeDeserializer().deserialize`` of boto3 1.x rewritten: the same wire values for every input,
and the same exception types and messages for every value they refuse (a float, NaN/Infinity, a
number over 38 digits or out of range, a set mixing types, an unsupported type...), checked
against boto3 over a generated corpus (tests/platform/test_ddbtypes.py). The checks run in
boto3's order; the common exact types (str, dict, int, Decimal, bool, None, list, bytes) take a
shortcut to the same answer.

One deliberate difference: a binary (``B``, and the members of ``BS``) reads back as ``bytes``
(what ``from_ddb`` makes of it anyway), not boto3's ``Binary`` wrapper (which compares and hashes
equal to its bytes). A ``Binary`` given to ``serialize`` is still taken (when the caller imported
boto3's types module, the only way to have one).

Powertools' ``aws_lambda_powertools.shared.dynamodb_deserializer`` was not used: an internal
module, and it departs from boto3 on numbers (accepts ``""``/``"."`` as 0, normalises numbers of
over 38 digits where boto3 raises); neither gives a serializer.
"""
from __future__ import annotations

import sys
from collections.abc import Mapping, Set
from decimal import Clamped, Context, Decimal, Inexact, Overflow, Rounded, Underflow
from typing import Any, Callable

#: boto3's context: 38 digits, DynamoDB's exponent range; any rounding or overflow raises.
DYNAMODB_CONTEXT = Context(Emin=-128, Emax=126, prec=38, traps=[Clamped, Overflow, Inexact, Rounded, Underflow])
BINARY_TYPES = (bytearray, bytes)
_BINARY_MESSAGE = "Value must be of the following types: " + ", ".join(str(t) for t in BINARY_TYPES)


# ---------------------------------------------------------------- Python → DynamoDB
def serialize(value: Any) -> dict[str, Any]:
    """One Python value → its DynamoDB wire form (``TypeSerializer.serialize``)."""
    t = type(value)
    if t is str:
        return {"S": value}
    if t is dict:
        return {"M": {k: serialize(v) for k, v in value.items()}}
    if t is int or t is Decimal:
        return {"N": _number(value)}
    if t is bool:
        return {"BOOL": value}
    if value is None:
        return {"NULL": True}
    if t is list:
        return {"L": [serialize(v) for v in value]}
    if t is bytes:
        return {"B": value}
    return _serialize_other(value)


def _serialize_other(value: Any) -> dict[str, Any]:
    """boto3's ``_get_dynamodb_type`` order (bool before number, sets before maps, float refused
    by the number check, mixed sets falling through to "Unsupported type")."""
    if value is None:
        return {"NULL": True}
    if isinstance(value, bool):
        return {"BOOL": value}
    if _is_number(value):
        return {"N": _number(value)}
    if isinstance(value, str):
        return {"S": value}
    if _is_binary(value):
        return {"B": _binary(value)}
    if isinstance(value, Set):
        if False not in map(_is_number, value):
            return {"NS": [_number(n) for n in value]}
        if False not in map(_is_string, value):
            return {"SS": [s for s in value]}
        if False not in map(_is_binary, value):
            return {"BS": [_binary(b) for b in value]}
    if isinstance(value, Mapping):
        return {"M": {k: serialize(v) for k, v in value.items()}}
    if isinstance(value, (list, tuple)):
        return {"L": [serialize(v) for v in value]}
    raise TypeError(f'Unsupported type "{type(value)}" for value "{value}"')


def _is_number(value: Any) -> bool:
    if isinstance(value, (int, Decimal)):
        return True
    if isinstance(value, float):
        raise TypeError("Float types are not supported. Use Decimal types instead.")
    return False


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def _binary_types() -> tuple[type, ...]:
    """bytes, bytearray and, when boto3's types module is loaded, its ``Binary``."""
    boto3_types = sys.modules.get("boto3.dynamodb.types")
    binary = getattr(boto3_types, "Binary", None)
    return (*BINARY_TYPES, binary) if isinstance(binary, type) else BINARY_TYPES


def _is_binary(value: Any) -> bool:
    return isinstance(value, _binary_types())


def _binary(value: Any) -> Any:
    return value if isinstance(value, BINARY_TYPES) else value.value  # boto3's Binary


def _number(value: Any) -> str:
    number = str(DYNAMODB_CONTEXT.create_decimal(value))
    if number in ("Infinity", "NaN"):
        raise TypeError("Infinity and NaN not supported")
    return number


# ---------------------------------------------------------------- DynamoDB → Python
def deserialize(value: dict[str, Any]) -> Any:
    """One DynamoDB wire value → Python (``TypeDeserializer.deserialize``; numbers as ``Decimal``
    in the DynamoDB context, sets as ``set``, binaries as ``bytes``)."""
    if not value:
        raise TypeError("Value must be a nonempty dictionary whose key is a valid dynamodb type.")
    dynamodb_type = list(value.keys())[0]
    fn = _DESERIALIZERS.get(dynamodb_type) or _DESERIALIZERS.get(f"{dynamodb_type}".lower())
    if fn is None:
        raise TypeError(f"Dynamodb type {dynamodb_type} is not supported")
    return fn(value[dynamodb_type])


def _deserialize_b(value: Any) -> Any:
    if not isinstance(value, BINARY_TYPES):
        raise TypeError(_BINARY_MESSAGE)
    return value


def _deserialize_m(value: Any) -> dict:
    return {k: deserialize(v) for k, v in value.items()}


def _deserialize_l(value: Any) -> list:
    return [deserialize(v) for v in value]


_number_in = DYNAMODB_CONTEXT.create_decimal
_DESERIALIZERS: dict[Any, Callable[[Any], Any]] = {
    "S": lambda v: v,
    "N": _number_in,
    "M": _deserialize_m,
    "L": _deserialize_l,
    "BOOL": lambda v: v,
    "NULL": lambda v: None,
    "B": _deserialize_b,
    "SS": lambda v: set(v),
    "NS": lambda v: set(map(_number_in, v)),
    "BS": lambda v: set(map(_deserialize_b, v)),
}
# boto3 looks the type up case-insensitively (``_deserialize_<type lowered>``)
_DESERIALIZERS.update({k.lower(): fn for k, fn in list(_DESERIALIZERS.items())})
