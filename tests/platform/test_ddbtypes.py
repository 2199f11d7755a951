"""``lambdakit.ddbtypes``: DynamoDB's wire format without the boto3 package (issue 21), checked
against boto3's own ``TypeSerializer``/``TypeDeserializer`` (boto3 stays installed for this).

Differential: for every generated value the two give the same wire value, or raise the same
exception type with the same message (``ddbcalls.call`` reads the message: NaN/Infinity and
"Unsupported type" become a 422, anything else stays a 500). The one intended difference: a
binary reads back as ``bytes`` where boto3 gives its ``Binary`` wrapper.
"""
from __future__ import annotations

import decimal
import types
from collections import OrderedDict
from decimal import Decimal
from typing import Any

import pytest
from boto3.dynamodb.types import Binary, TypeDeserializer, TypeSerializer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lambdakit import ddbtypes
from lambdakit.ddbcalls import deser_item, from_ddb, ser_item, to_ddb

B3_SER, B3_DE = TypeSerializer(), TypeDeserializer()
SETTINGS = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def outcome(fn, value: Any) -> tuple:
    try:
        return ("ok", strict(fn(value)))
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome compared
        return ("error", type(exc), str(exc))


def strict(v: Any) -> Any:
    """A comparable form that keeps types (``Decimal('1') == 1`` must not pass for ``1``); boto3's
    ``Binary`` counts as the bytes it wraps (the intended difference)."""
    if isinstance(v, Binary):
        v = v.value
    if isinstance(v, dict):
        return ("dict", [(strict(k), strict(x)) for k, x in v.items()])
    if isinstance(v, list):
        return ("list", [strict(x) for x in v])
    if isinstance(v, (set, frozenset)):
        return (type(v).__name__, sorted((repr(strict(x)) for x in v)))
    if isinstance(v, Decimal):
        return ("Decimal", str(v))  # keeps -0, exponent and NaN apart
    if isinstance(v, float):
        return ("float", repr(v))  # nan equal to nan
    return (type(v).__name__, v)


# ---------------------------------------------------------------- corpus
EDGE_NUMBERS = [0, -0, 1, -1, 10 ** 38 - 1, -(10 ** 38 - 1), 10 ** 38, 10 ** 38 + 1, 2 ** 127, True, False,
                Decimal("0"), Decimal("-0"), Decimal("0E+10"), Decimal("1e125"), Decimal("9.9999999999999999999999999999999999999E+125"),
                Decimal("1E+126"), Decimal("1E+127"), Decimal("1E-130"), Decimal("1E-200"), Decimal("1.5"),
                Decimal("12345678901234567890123456789012345678"), Decimal("123456789012345678901234567890123456789"),
                Decimal("1234567890123456789012345678901234567.8"), Decimal("1.0000000000000000000000000000000000000"),
                Decimal("1.00000000000000000000000000000000000000"), Decimal("100000000000000000000000000000000000000"),
                Decimal("NaN"), Decimal("-NaN"), Decimal("sNaN"), Decimal("Infinity"), Decimal("-Infinity"),
                Decimal("-1E-128"), Decimal("1E-128"), Decimal("1.10")]
#: members a set may have (hashable; sNaN is not)
set_members = st.one_of(
    st.integers(min_value=-(10 ** 40), max_value=10 ** 40), st.booleans(),
    st.decimals(allow_nan=False, allow_infinity=True),
    st.sampled_from([n for n in EDGE_NUMBERS if not (isinstance(n, Decimal) and n.is_snan())]),
    st.text(max_size=5), st.binary(max_size=5), st.floats(allow_nan=False),
)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=-(10 ** 40), max_value=10 ** 40),
    st.decimals(), st.sampled_from(EDGE_NUMBERS), st.floats(), st.text(), st.just(""),
    st.binary(), st.binary().map(bytearray), st.binary().map(Binary),
    st.sampled_from([object, 1j, range(2)]),
)
sets = st.one_of(
    st.sets(st.integers(), max_size=5), st.sets(st.text(max_size=4), max_size=5),
    st.sets(st.binary(max_size=4), max_size=5), st.frozensets(set_members, max_size=5),
    st.sets(set_members, max_size=4), st.just(set()), st.just(frozenset()),
    st.sets(st.binary(max_size=3).map(Binary), max_size=3),
)


def containers(children):
    return st.one_of(
        st.lists(children, max_size=5), st.lists(children, max_size=5).map(tuple),
        st.dictionaries(st.text(max_size=6), children, max_size=5),
        st.dictionaries(st.text(max_size=6), children, max_size=3).map(OrderedDict),
        st.dictionaries(st.text(max_size=6), children, max_size=3).map(types.MappingProxyType),
        st.just([]), st.just({}), st.just(()),
    )


values = st.recursive(st.one_of(scalars, sets), containers, max_leaves=25)
items = st.dictionaries(st.text(min_size=1, max_size=6), values, max_size=6)

#: wire values, valid and not (what botocore could hand over, and what it never does)
wire_scalars = st.one_of(
    st.builds(lambda s: {"S": s}, st.text()), st.builds(lambda b: {"BOOL": b}, st.booleans()),
    st.just({"NULL": True}), st.builds(lambda b: {"B": b}, st.binary()),
    st.builds(lambda n: {"N": n}, st.one_of(
        st.integers().map(str), st.decimals().map(str), st.sampled_from([str(n) for n in EDGE_NUMBERS]),
        st.sampled_from(["", ".", "abc", "1e", " 1", "-0", "1_0", "0x10"]))),
    st.builds(lambda v: {"NS": v}, st.lists(st.decimals(allow_nan=False, allow_infinity=False).map(str), max_size=4)),
    st.builds(lambda v: {"SS": v}, st.lists(st.text(max_size=4), max_size=4)),
    st.builds(lambda v: {"BS": v}, st.lists(st.binary(max_size=4), max_size=4)),
    st.sampled_from([{}, {"X": 1}, {"n": "1"}, {"ss": ["a"]}, {"Null": True}, {"B": "not bytes"},
                     {"BS": [b"a", "b"]}, {"S": "a", "N": "1"}, {1: "x"}]),
)
wire = st.recursive(wire_scalars, lambda c: st.one_of(
    st.builds(lambda v: {"L": v}, st.lists(c, max_size=4)),
    st.builds(lambda v: {"M": v}, st.dictionaries(st.text(max_size=4), c, max_size=4))), max_leaves=20)


# ---------------------------------------------------------------- differential
@SETTINGS
@given(values)
def test_serialize_is_boto3s(value):
    assert outcome(ddbtypes.serialize, value) == outcome(B3_SER.serialize, value)


@SETTINGS
@given(values)
def test_deserialize_of_serialized_is_boto3s(value):
    try:
        data = B3_SER.serialize(value)
    except Exception:  # noqa: BLE001 - only values boto3 can write are read back
        return
    assert outcome(ddbtypes.deserialize, data) == outcome(B3_DE.deserialize, data)


@SETTINGS
@given(wire)
def test_deserialize_is_boto3s_on_any_wire_value(data):
    assert outcome(ddbtypes.deserialize, data) == outcome(B3_DE.deserialize, data)


@SETTINGS
@given(items)
def test_items_convert_as_through_boto3(item):
    """``ser_item``/``deser_item`` (with ``to_ddb``: floats become Decimal first) against the same
    loops over boto3's codec, and the round trip of what can be stored."""
    def boto3_ser_item(i):
        return {k: B3_SER.serialize(to_ddb(v)) for k, v in i.items()}

    ours = outcome(ser_item, item)
    assert ours == outcome(boto3_ser_item, item)
    if ours[0] != "ok":
        return
    data = ser_item(item)
    back = deser_item(data)
    assert strict(back) == strict({k: B3_DE.deserialize(v) for k, v in data.items()})
    # (a "-Infinity" passes boto3's serializer, and from_ddb refuses it either way)
    assert outcome(from_ddb, back) == outcome(from_ddb, deser_item(boto3_ser_item(item)))


# ---------------------------------------------------------------- explicit cases
@pytest.mark.parametrize("value,expected", [
    (None, {"NULL": True}), (True, {"BOOL": True}), (False, {"BOOL": False}), (0, {"N": "0"}),
    (Decimal("-0"), {"N": "-0"}), (Decimal("1e125"), {"N": "1E+125"}), ("", {"S": ""}), (b"", {"B": b""}),
    (Binary(b"x"), {"B": b"x"}), (bytearray(b"x"), {"B": bytearray(b"x")}), (set(), {"NS": []}),
    (frozenset({"a"}), {"SS": ["a"]}), ({b"a"}, {"BS": [b"a"]}), ([], {"L": []}), ((), {"L": []}), ({}, {"M": {}}),
    (12345678901234567890123456789012345678, {"N": "12345678901234567890123456789012345678"}),
    ({"a": [1, {"b": {True}}]}, {"M": {"a": {"L": [{"N": "1"}, {"M": {"b": {"NS": ["1"]}}}]}}}),
])
def test_values(value, expected):
    assert ddbtypes.serialize(value) == expected == B3_SER.serialize(value)


@pytest.mark.parametrize("value,error", [
    (1.5, TypeError), (Decimal("NaN"), TypeError), (Decimal("Infinity"), TypeError),
    (10 ** 38, decimal.Rounded), (Decimal("1.00000000000000000000000000000000000001"), decimal.Inexact),
    (Decimal("1E+127"), decimal.Overflow), (Decimal("1E-200"), decimal.Underflow), ({1, "a"}, TypeError),
    ({1, 2.5}, TypeError), ([{"a": float("nan")}], TypeError), (object(), TypeError), (1j, TypeError),
])
def test_refusals(value, error):
    with pytest.raises(error) as ours:
        ddbtypes.serialize(value)
    with pytest.raises(error) as theirs:
        B3_SER.serialize(value)
    assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)


def test_boto3s_quirks_are_kept():
    """boto3 refuses only "NaN" and "Infinity" by their text: the other non-numbers pass (DynamoDB
    refuses them); the same here, so a request answers as before."""
    for n in ("-NaN", "sNaN", "-Infinity"):
        assert ddbtypes.serialize(Decimal(n)) == {"N": n} == B3_SER.serialize(Decimal(n))


def test_binary_reads_back_as_bytes():
    """The intended difference: boto3 wraps a binary in ``Binary``, here it is ``bytes`` (equal to
    boto3's answer, and what ``from_ddb`` hands the services either way)."""
    assert ddbtypes.deserialize({"B": b"\x00x"}) == b"\x00x" == B3_DE.deserialize({"B": b"\x00x"})
    assert type(ddbtypes.deserialize({"B": b"x"})) is bytes
    assert ddbtypes.deserialize({"BS": [b"a", b"b"]}) == {b"a", b"b"} == B3_DE.deserialize({"BS": [b"a", b"b"]})
    assert from_ddb(deser_item({"k": {"B": b"x"}})) == {"k": b"x"}


def test_numbers_read_back_in_the_dynamodb_context():
    for n in ("0", "-0", "1.10", "1E+125", "12345678901234567890123456789012345678", "1E-130"):
        ours, theirs = ddbtypes.deserialize({"N": n}), B3_DE.deserialize({"N": n})
        assert type(ours) is Decimal and str(ours) == str(theirs)
    for n in ("123456789012345678901234567890123456789", "1E+200"):
        with pytest.raises(decimal.DecimalException):
            ddbtypes.deserialize({"N": n})
