"""``exams.frozen``: the value classes' ``@dataclass(frozen=True)`` behaviour without its code
generation (issue 21, cold first request)."""
from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from exams import frozen
from exams.identity.policy import POLICY, Cell
from exams.identity.principal import Principal
from exams.identity.reads import RouteRequest


@frozen
class Point:
    x: int
    y: int = 0
    label: str | None = None

    @property
    def norm1(self) -> int:
        return abs(self.x) + abs(self.y)


@dataclasses.dataclass(frozen=True)
class DPoint:
    x: int
    y: int = 0
    label: str | None = None


def test_construction_defaults_and_repr_match_a_frozen_dataclass():
    for args, kw in [((1,), {}), ((1, 2), {}), ((1,), {"label": "a"}), ((), {"x": 3, "y": 4, "label": None})]:
        p, d = Point(*args, **kw), DPoint(*args, **kw)
        assert repr(p) == repr(d).replace("DPoint", "Point")
        assert (p.x, p.y, p.label) == (d.x, d.y, d.label)
    assert Point(3, -4).norm1 == 7
    assert Point.__match_args__ == DPoint.__match_args__ == ("x", "y", "label")


def test_equality_and_hash_over_the_fields_of_the_same_class_only():
    assert Point(1, 2) == Point(x=1, y=2, label=None)
    assert hash(Point(1, 2)) == hash(Point(1, 2))
    assert Point(1, 2) != Point(1, 3)
    assert Point(1, 2) != (1, 2, None)          # not a tuple
    assert Point(1, 2) != DPoint(1, 2)          # another class
    assert len({Point(1), Point(1), Point(2)}) == 2


def test_frozen_like_a_dataclass():
    p = Point(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del p.x  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.other = 1  # type: ignore[attr-defined]
    assert p.x == 1


@pytest.mark.parametrize("call", [
    lambda: Point(),                      # missing
    lambda: Point(1, 2, "a", 4),          # too many
    lambda: Point(1, x=2),                # twice
    lambda: Point(1, z=2),                # unknown
])
def test_wrong_arguments_raise_type_error_as_a_dataclass_does(call):
    with pytest.raises(TypeError):
        call()


def test_a_field_without_default_after_one_with_default_is_refused():
    with pytest.raises(TypeError):
        @frozen
        class Bad:
            a: int = 0
            b: int


def test_copy_pickle_and_match():
    p = Principal("u1", "student", None, "e@x", "N")
    assert pickle.loads(pickle.dumps(p)) == p
    assert copy.copy(p) == p and copy.deepcopy(p) == p
    match p:
        case Principal(uid, role):
            assert (uid, role) == ("u1", "student")
        case _:
            pytest.fail("no match")


def test_service_value_classes_use_it():
    assert isinstance(POLICY["GET /api/tests"], Cell) and POLICY["GET /api/tests"].for_role("client_admin") == "tenant"
    r = RouteRequest(path={}, query={"client_id": "c1"}, user_id="u1")
    assert r.maybe_super_admin is True and r.arg("client_id") == "c1"
    assert not dataclasses.is_dataclass(Principal)  # no generated code: the point of ``frozen``
