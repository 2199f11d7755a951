"""``lambdakit.conditions``: query filters without the boto3 package (issue 21), checked against
boto3's own ``boto3.dynamodb.conditions`` (boto3 stays installed for this).

Differential: every generated condition (each operator, nesting with ``&``, ``|``, ``~``, dotted and
indexed names, values of every type ``ddbtypes`` writes) is made twice, with our ``Attr`` and with
boto3's, and built by ``ddb.build_filter`` and by boto3's ``ConditionExpressionBuilder``. The two
expressions are the same string once each placeholder is replaced by what it stands for (a name
part, or a value in its wire form). Behavioural: the same filters through ``Table.query`` against
moto return the items boto3's expression returns. Then the wrong uses.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import boto3
import pytest
from boto3.dynamodb import conditions as b3
from boto3.dynamodb.types import TypeSerializer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lambdakit import conditions as ours
from lambdakit import ddb, ddbtypes
from lambdakit.conditions import Attr

ROOT = Path(__file__).resolve().parents[2]
B3_SER = TypeSerializer()
SETTINGS = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- conditions as data, made by either module
def make(mod: Any, spec: tuple) -> Any:
    """The condition ``spec`` describes, made with ``mod`` (``lambdakit.conditions`` or boto3's)."""
    kind = spec[0]
    if kind == "and":
        return make(mod, spec[1]) & make(mod, spec[2])
    if kind == "or":
        return make(mod, spec[1]) | make(mod, spec[2])
    if kind == "not":
        return ~make(mod, spec[1])
    _, name, size, method, args = spec
    target = mod.Attr(name).size() if size else mod.Attr(name)
    return getattr(target, method)(*(mod.Attr(a[1]) if isinstance(a, tuple) and a[:1] == ("attr",) else a
                                     for a in args))


def canon(wire: Any) -> Any:
    """A wire value with its sets' members sorted (a set's order is no part of its meaning)."""
    if isinstance(wire, dict):
        return {k: sorted(map(repr, v)) if k in ("SS", "NS", "BS") else canon(v) for k, v in wire.items()}
    if isinstance(wire, list):
        return [canon(v) for v in wire]
    return wire


def resolved(expression: str, names: dict, values: dict, serialize) -> str:
    """The expression with each placeholder replaced by the name part or the wire value it stands for."""
    table = {**{k: f"#<{v}>" for k, v in names.items()},
             **{k: f":<{json.dumps(canon(serialize(v)), sort_keys=True, default=repr)}>" for k, v in values.items()}}
    if not table:
        return expression
    keys = sorted(table, key=len, reverse=True)
    return re.sub("|".join(map(re.escape, keys)), lambda m: table[m.group()], expression)


def both(spec: tuple) -> tuple[str, str]:
    expression, names, values = ddb.build_filter(make(ours, spec))
    theirs = b3.ConditionExpressionBuilder().build_expression(make(b3, spec))
    # our placeholders are the filter's own (``#fn0``, ``:fv1``), each used, none left over
    assert all(re.fullmatch(r"#fn\d+", k) for k in names) and all(re.fullmatch(r":fv\d+", k) for k in values)
    assert set(re.findall(r"#fn\d+|:fv\d+", expression)) == set(names) | set(values)
    assert (len(names), len(values)) == (len(theirs.attribute_name_placeholders),
                                         len(theirs.attribute_value_placeholders))
    return (resolved(expression, names, values, ddbtypes.serialize),
            resolved(theirs.condition_expression, theirs.attribute_name_placeholders,
                     theirs.attribute_value_placeholders, B3_SER.serialize))


# ---------------------------------------------------------------- corpus
#: path names: nested (``a.b``), indexed (``l[0]``), odd characters; no ``%`` (boto3's own name
#: formatting breaks on one between brackets) and no ``#``/``:`` (kept literally between brackets,
#: they would read as placeholders in the comparison)
NAMES = ["status", "a.b", "a.b.c", "m[0]", "a.b[1].c", "l[0][1]", "x y", "#n0", ":v0", "é", "a..b", ".a", "a.",
         "[0]", "a[b]c", "size", "AND", "{0}", "pk"]
names = st.one_of(st.sampled_from(NAMES), st.text(alphabet="ab.[]0 é{}_-", min_size=1, max_size=8))
scalars = st.one_of(
    st.text(max_size=6), st.integers(min_value=-(10 ** 37), max_value=10 ** 37),
    st.decimals(allow_nan=False, allow_infinity=False, places=3, min_value=-10 ** 6, max_value=10 ** 6),
    st.booleans(), st.none(), st.binary(max_size=4), st.binary(max_size=4).map(bytearray),
    st.sets(st.text(max_size=3), min_size=1, max_size=3), st.frozensets(st.integers(-99, 99), min_size=1, max_size=3),
    st.sets(st.binary(max_size=3), min_size=1, max_size=3),
)
values = st.recursive(scalars, lambda c: st.one_of(
    st.lists(c, max_size=3), st.lists(c, max_size=3).map(tuple), st.dictionaries(st.text(max_size=4), c, max_size=3)),
    max_leaves=8)
operands = st.one_of(values, names.map(lambda n: ("attr", n)))  # a value, or another attribute


def leaf() -> st.SearchStrategy:
    def cmp(method: str, n: int, size: bool = False) -> st.SearchStrategy:
        return st.tuples(st.just("cmp"), names, st.just(size), st.just(method), st.tuples(*[operands] * n))

    return st.one_of(
        *[cmp(m, 1) for m in ("eq", "ne", "lt", "lte", "gt", "gte", "begins_with", "contains")],
        cmp("between", 2), cmp("exists", 0), cmp("not_exists", 0),
        st.tuples(st.just("cmp"), names, st.just(False), st.just("is_in"), st.tuples(st.lists(values, max_size=4))),
        st.tuples(st.just("cmp"), names, st.just(False), st.just("attribute_type"),
                  st.tuples(st.sampled_from(["S", "N", "B", "SS", "NS", "BS", "BOOL", "NULL", "L", "M"]))),
        *[cmp(m, 1, size=True) for m in ("eq", "lt", "lte", "gt", "gte")], cmp("between", 2, size=True),
    )


conditions = st.recursive(leaf(), lambda c: st.one_of(
    st.tuples(st.just("and"), c, c), st.tuples(st.just("or"), c, c), st.tuples(st.just("not"), c)), max_leaves=8)


# ---------------------------------------------------------------- differential
@SETTINGS
@given(conditions)
def test_expression_is_boto3s(spec):
    mine, theirs = both(spec)
    assert mine == theirs


@pytest.mark.parametrize("spec,expected", [
    (("cmp", "status", False, "eq", ("active",)), "#<status> = :<{\"S\": \"active\"}>"),
    (("cmp", "a.b[1].c", False, "exists", ()), "attribute_exists(#<a>.#<b>[1].#<c>)"),
    (("or", ("cmp", "p", False, "not_exists", ()), ("not", ("cmp", "p", False, "lte", (2,)))),
     "(attribute_not_exists(#<p>) OR (NOT #<p> <= :<{\"N\": \"2\"}>))"),
    (("and", ("and", ("cmp", "a", False, "eq", (1,)), ("cmp", "b", False, "eq", (2,))),
      ("or", ("cmp", "c", False, "contains", ("x",)), ("cmp", "d", True, "gt", (3,)))),
     "((#<a> = :<{\"N\": \"1\"}> AND #<b> = :<{\"N\": \"2\"}>) AND "
     "(contains(#<c>, :<{\"S\": \"x\"}>) OR size(#<d>) > :<{\"N\": \"3\"}>))"),
    (("cmp", "t", False, "is_in", (["x", "y"],)), "#<t> IN (:<{\"S\": \"x\"}>, :<{\"S\": \"y\"}>)"),
    (("cmp", "n", False, "between", (1, ("attr", "m"))), "#<n> BETWEEN :<{\"N\": \"1\"}> AND #<m>"),
])
def test_examples(spec, expected):
    """Named cases (the product's operators among them), boto3's parenthesisation included."""
    mine, theirs = both(spec)
    assert mine == theirs == expected


def test_placeholders_stay_apart_from_the_key_conditions():
    """The filter's placeholders never collide with ``query_page``'s key condition and projection
    (``#kn0``/``:kv1``), even on the same attribute."""
    expression, names, values = ddb.build_filter(Attr("pk").eq("x") & Attr("sk").begins_with("y"))
    assert expression == "(#fn0 = :fv1 AND begins_with(#fn1, :fv2))"
    assert names == {"#fn0": "pk", "#fn1": "sk"} and values == {":fv1": "x", ":fv2": "y"}


def test_values_convert_as_the_other_expressions():
    """Values go through ``to_ddb`` as in ``_Expr.value``: a float becomes a ``Decimal`` (where
    boto3's serializer refuses it), a tuple a list."""
    _, _, values = ddb.build_filter(Attr("n").eq(1.5) | Attr("l").eq((1, 2.5)))
    assert values == {":fv1": Decimal("1.5"), ":fv2": [1, Decimal("2.5")]}


# ---------------------------------------------------------------- wrong use
@pytest.mark.parametrize("bad", [
    lambda: Attr("a") & Attr("b").eq(1),
    lambda: Attr("a").eq(1) & Attr("b"),
    lambda: Attr("a").eq(1) | "b = :c",
    lambda: Attr("a").eq(1) & None,
    lambda: Attr("a") | Attr("b"),
    lambda: ~Attr("a"),
    lambda: Attr("a").size() & Attr("b").eq(1),
    lambda: Attr(1),
])
def test_wrong_combinations_raise_type_error(bad):
    with pytest.raises(TypeError) as exc:
        bad()
    assert "operation cannot be applied" in str(exc.value) or "attribute name" in str(exc.value)


def test_not_supported_message_names_the_operation_and_value():
    with pytest.raises(TypeError, match=r"^AND operation cannot be applied to value 'x' of type <class 'str'>"):
        Attr("a").eq(1) & "x"
    with pytest.raises(TypeError, match=r"^NOT operation cannot be applied to value Attr\('a'\)"):
        ~Attr("a")


@pytest.mark.parametrize("flt", ["#a = :b", Attr("a"), b3.Attr("a").eq(1), {"a": 1}])
def test_a_filter_must_be_a_lambdakit_condition(flt):
    """A string, a bare attribute or one of boto3's conditions (no fallback to boto3's builder)."""
    with pytest.raises(TypeError, match="Expecting a lambdakit.conditions condition"):
        ddb.build_filter(flt)


def test_the_module_imports_no_boto3():
    code = ("import sys; from lambdakit import ddb; from lambdakit.conditions import Attr; "
            "ddb.build_filter(Attr('a.b').eq(1) & ~Attr('c').exists()); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('boto3', 's3transfer')))")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "layers" / "shared")}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


# ---------------------------------------------------------------- behavioural: moto evaluates both
ITEMS = [
    {"sk": "i#00", "status": "active", "n": 1, "tags": {"x", "y"}, "m": {"b": "deep", "l": [1, 2]}, "flag": True},
    {"sk": "i#01", "status": "bounced", "n": 5, "tags": {"y"}, "m": {"b": "other"}, "flag": False},
    {"sk": "i#02", "status": "active", "n": 10, "name": "Ada Lovelace", "phone": "+441234"},
    {"sk": "i#03", "n": 7, "name": "ada", "m": {"l": []}, "nothing": None},
    {"sk": "i#04", "status": "unsubscribed", "name": "Grace", "blob": b"\x00\x01", "l": ["a", "b"]},
    {"sk": "j#05", "status": "active", "n": 3, "to": "A@x.io", "to_lc": "a@x.io"},
    {"sk": "j#06", "status": "Active", "n": -2, "to_lc": "b@x.io", "gsi3pk": "Q"},
]
FILTERS = [
    ("cmp", "status", False, "eq", ("active",)),
    ("cmp", "status", False, "ne", ("active",)),
    ("cmp", "n", False, "lte", (5,)),
    ("cmp", "n", False, "gt", (Decimal("3.5"),)),
    ("cmp", "n", False, "between", (2, 7)),
    ("cmp", "name", False, "contains", ("Ada",)),
    ("cmp", "name", False, "begins_with", ("a",)),
    ("cmp", "tags", False, "contains", ("x",)),
    ("cmp", "l", False, "contains", ("b",)),
    ("cmp", "m.b", False, "eq", ("deep",)),
    ("cmp", "m.l[1]", False, "eq", (2,)),
    ("cmp", "m.b", False, "exists", ()),
    ("cmp", "gsi3pk", False, "not_exists", ()),
    ("cmp", "status", False, "is_in", (["bounced", "unsubscribed"],)),
    ("cmp", "flag", False, "eq", (False,)),
    ("and", ("cmp", "nothing", False, "exists", ()), ("cmp", "nothing", False, "eq", (None,))),  # (moto: a missing one is null)
    ("cmp", "blob", False, "eq", (b"\x00\x01",)),
    ("cmp", "tags", False, "eq", ({"x", "y"},)),
    ("cmp", "m", False, "attribute_type", ("M",)),
    ("and", ("cmp", "tags", False, "exists", ()), ("cmp", "tags", True, "gt", (1,))),  # (moto: size of nothing fails)
    ("cmp", "to", False, "eq", (("attr", "to_lc"),)),
    ("not", ("cmp", "status", False, "exists", ())),
    ("or", ("cmp", "to", False, "eq", ("b@x.io",)), ("cmp", "to_lc", False, "eq", ("b@x.io",))),
    ("or", ("cmp", "status", False, "not_exists", ()), ("cmp", "status", False, "eq", ("bounced",))),
    ("and", ("cmp", "status", False, "eq", ("active",)),
     ("or", ("cmp", "n", False, "lte", (1,)), ("not", ("cmp", "name", False, "contains", ("Love",))))),
    ("and", ("cmp", "n", False, "exists", ()), ("and", ("cmp", "n", False, "gte", (3,)),
                                                 ("cmp", "status", False, "begins_with", ("a",)))),
]


@pytest.fixture
def conds_table(aws_mock):
    from lambdakit import aws

    aws.reset()
    name = "conds"
    aws.client("dynamodb").create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "S"}])
    t = ddb.Table(name)
    t.batch_write([{"pk": "P", **i} for i in ITEMS])
    yield t
    aws.reset()


def _boto3_query(table: str, spec: tuple, **key: Any) -> list[str]:
    built = b3.ConditionExpressionBuilder().build_expression(make(b3, spec))
    names = {"#kp": "pk", **built.attribute_name_placeholders}
    values = {":kp": B3_SER.serialize("P"), **{k: B3_SER.serialize(v) for k, v in built.attribute_value_placeholders.items()}}
    cond = "#kp = :kp"
    if "sk_prefix" in key:
        names["#ks"], values[":ks"] = "sk", B3_SER.serialize(key["sk_prefix"])
        cond += " AND begins_with(#ks, :ks)"
    items = boto3.client("dynamodb").query(TableName=table, KeyConditionExpression=cond, FilterExpression=built.condition_expression,
                                           ExpressionAttributeNames=names, ExpressionAttributeValues=values)["Items"]
    return [i["sk"]["S"] for i in items]


@pytest.mark.parametrize("spec", FILTERS)
def test_a_query_filters_as_with_boto3s_expression(conds_table, spec):
    got = [i["sk"] for i in conds_table.query_all("P", filter=make(ours, spec))]
    assert got == _boto3_query(conds_table.name, spec)


def test_the_filters_select_something_and_not_everything(conds_table):
    """The comparison above is not vacuous: each filter keeps some items and drops others."""
    for spec in FILTERS:
        got = [i["sk"] for i in conds_table.query_all("P", filter=make(ours, spec))]
        assert 0 < len(got) < len(ITEMS), (spec, got)


def test_a_filter_next_to_a_key_condition_projection_and_count(conds_table):
    """Key condition, projection and filter on the same attributes: their placeholders coexist."""
    spec = ("and", ("cmp", "sk", False, "begins_with", ("i#0",)), ("cmp", "status", False, "eq", ("active",)))
    page = conds_table.query_page("P", sk_prefix="i#", columns=["sk", "status"], filter=make(ours, spec))
    assert page.items == [{"sk": "i#00", "status": "active"}, {"sk": "i#02", "status": "active"}]
    assert (page.matched, page.scanned) == (2, 5)
    assert [i["sk"] for i in page.items] == _boto3_query(conds_table.name, spec, sk_prefix="i#")
    count = conds_table.query_page("P", filter=Attr("status").eq("active"), select_count=True)
    assert (count.matched, count.scanned) == (3, len(ITEMS))


def test_a_float_value_filters_as_its_decimal(conds_table):
    assert [i["sk"] for i in conds_table.query_all("P", filter=Attr("n").gt(4.5))] == ["i#01", "i#02", "i#03"]


def test_a_boto3_condition_is_refused_before_any_call(conds_table):
    with pytest.raises(TypeError, match="lambdakit.conditions"):
        conds_table.query("P", filter=b3.Attr("status").eq("active"))


def test_all_of_and_any_of_fold_optional_parts_as_written_by_hand():
    a, b, c = Attr("a").eq(1), Attr("b").contains("x"), Attr("c").exists()
    assert ours.all_of([]) is None and ours.any_of([None, None]) is None
    assert ours.all_of([None, a]) is a
    for combined, by_hand in ((ours.all_of([a, None, b, c]), (a & b) & c), (ours.any_of([a, b, None, c]), (a | b) | c)):
        assert ddb.build_filter(combined) == ddb.build_filter(by_hand)
