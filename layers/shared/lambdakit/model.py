"""The services' pydantic base model (issue 21, cold first request; issue 32, items 5 and 8).

``Model`` is ``pydantic.BaseModel`` with ``defer_build=True``: a model's validator and serializer
are built the first time it is used, not when its module is imported. A function imports every
model of its endpoint group, but one request uses one or two of them; building the others at
import would be paid by every cold start (and an ``EmailStr`` field would import
``email_validator``). Subclasses keep their own ``model_config``; pydantic merges it with this one.

Every model of the three services derives from it, so what it checks holds for every field of
every request body without anyone remembering (issue 32), after pydantic's own coercion (a
``1e40`` float given to an ``int`` field is checked as the integer it became):

* **Numbers DynamoDB can store** (item 5): an integer has at most 38 digits (``|n| < 10**38``);
  a float or decimal is finite, at most 9.99…E+125 in magnitude and, unless zero, at least
  1E-130. A field's own ``Field(ge=…, le=…)`` bounds may be tighter.
* **No control characters** (item 8) in any string (keys of free-form objects included): C0
  controls other than tab, newline and carriage return, DEL and the C1 controls are refused. (The
  shared JSON parser refuses them in every body before any model runs; this check also covers
  values that did not come through it.)
* **Single-line by default** (item 8): a string field also refuses tab, newline, carriage return,
  vertical tab, form feed, NEL and the Unicode line/paragraph separators, unless the field is
  multi-line: annotated ``MultiLine`` (``Annotated[str, MULTILINE]``), or named in the class's
  ``multiline_fields`` (default ``MULTILINE_NAMES``: the prose fields of the three services,
  such as descriptions, contents, HTML/text bodies, messages, notes, addresses, question texts,
  answers), or a free-form object (``lambdakit.validated.FreeDict``). Names, emails, subjects,
  titles, ids, codes, URLs and every other field are single-line, so nothing that reaches a mail
  header, a CSV export, a PDF line or a log key can carry a line break.

A refusal is a ``ValueError`` naming the field path: the service's validation error (campaigns
422, exams and internships 400), never a 500.
"""
from __future__ import annotations

import math
import re
import typing
from decimal import Decimal
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationInfo, model_validator


class _MultiLineMarker:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MULTILINE"


#: Metadata marking a string field (or every string inside a field) as multi-line.
MULTILINE = _MultiLineMarker()
MultiLine = Annotated[str, MULTILINE]

#: Fields multi-line by name in every model (prose the specs let a person write on several lines).
MULTILINE_NAMES = frozenset({
    "description", "content", "html", "text", "body", "message", "note", "notes", "admin_notes", "remarks",
    "reason", "address", "siteAddress", "question_text", "explanation", "student_answer", "submissionNotes",
    "template", "announcement_banner", "bio", "instructions", "feedback", "comment", "comments", "summary",
    "terms", "footer", "details", "answer", "answers", "postal_address",
})

#: Integers DynamoDB stores exactly: 38 digits.
MAX_INT_EXCLUSIVE = 10 ** 38
DDB_MAX = Decimal("9.9999999999999999999999999999999999999E+125")
DDB_MIN = Decimal("1E-130")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_LINE_BREAK = re.compile("[\t\n\r\x0b\x0c\x85\u2028\u2029]")


def _marked(annotation: Any) -> bool:
    stack = [annotation]
    while stack:
        a = stack.pop()
        if any(m is MULTILINE for m in getattr(a, "__metadata__", ()) or ()):
            return True
        stack.extend(typing.get_args(a))
        origin = getattr(a, "__origin__", None)
        if origin is not None and origin is not a:
            stack.append(origin)
    return False


_MULTI_CACHE: dict[type, frozenset[str]] = {}


def _multiline_of(cls: type[Model]) -> frozenset[str]:
    got = _MULTI_CACHE.get(cls)
    if got is None:
        names = set(cls.multiline_fields)
        for name, f in cls.model_fields.items():
            if any(m is MULTILINE for m in f.metadata) or _marked(f.annotation):
                names.add(name)
        got = _MULTI_CACHE[cls] = frozenset(names)
    return got


def number_problem(v: Any) -> str | None:
    """Why DynamoDB could not store ``v`` (an int, float or Decimal), or ``None``."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return None if -MAX_INT_EXCLUSIVE < v < MAX_INT_EXCLUSIVE else "must have at most 38 digits"
    if isinstance(v, float):
        if not math.isfinite(v):
            return "must be a finite number"
        v = Decimal(repr(v))
    if isinstance(v, Decimal):
        if not v.is_finite():
            return "must be a finite number"
        if v and not DDB_MIN <= abs(v) <= DDB_MAX:
            return "is out of range (magnitude 1E-130 to 9.99E+125)"
    return None


def string_problem(s: str, *, multiline: bool) -> str | None:
    if _CONTROL.search(s):
        return "must not contain control characters"
    if not multiline and _LINE_BREAK.search(s):
        return "must be a single line (no tabs or line breaks)"
    return None


class FieldProblem(ValueError):
    """A refused value: ``path`` (the field, dotted, inside the model) and ``problem``; the shared
    ``lambdakit.http.pydantic_fields`` reports it under the full path."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path} {problem}")
        self.path, self.problem = path, problem


def check_value(value: Any, path: str, *, multiline: bool) -> None:
    """``FieldProblem`` (a ``ValueError``) naming the path of the first number or string ``value`` holds that breaks
    the rules above (nested lists, tuples, sets and dicts walked; nested models check themselves)."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        cur, where = stack.pop()
        if isinstance(cur, str):
            problem = string_problem(cur, multiline=multiline)
        elif isinstance(cur, (int, float, Decimal)):
            problem = number_problem(cur)
        elif isinstance(cur, dict):
            for k, v in cur.items():
                if isinstance(k, str) and string_problem(k, multiline=False):
                    raise FieldProblem(where, f"keys {string_problem(k, multiline=False)}")
                stack.append((v, f"{where}.{k}"))
            continue
        elif isinstance(cur, (list, tuple, set, frozenset)):
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(cur))
            continue
        else:
            continue
        if problem:
            raise FieldProblem(where, problem)


#: Validation context of ``dump``: a response model checks shape and types only, not the request rules.
RESPONSE_CONTEXT = "lambdakit_response"


class Model(BaseModel):
    model_config = ConfigDict(defer_build=True)

    #: Names of this model's multi-line string fields (besides fields annotated ``MultiLine``).
    multiline_fields: ClassVar[frozenset[str]] = MULTILINE_NAMES

    @model_validator(mode="after")
    def _lambdakit_storable_values(self, info: ValidationInfo) -> Any:
        if (info.context or {}).get(RESPONSE_CONTEXT):
            # an answer shows what was stored, also a value stored before a rule existed (a sender
            # name with a line break, issue 17): the request rules are for what comes in
            return self
        cls = type(self)
        multi = _multiline_of(cls)
        for name in cls.model_fields:
            v = getattr(self, name, None)
            if v is None or isinstance(v, (bool, BaseModel)):
                continue
            check_value(v, name, multiline=name in multi)
        for name, v in (self.model_extra or {}).items():
            check_value(v, name, multiline=True)
        return self


def _plain(v: Any, *, whole: bool) -> Any:
    """Numbers as the envelope writes them: a whole number as an integer (``Decimal`` from DynamoDB
    included), anything else unchanged; walks lists and dicts."""
    if isinstance(v, dict):
        return {k: _plain(x, whole=whole) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x, whole=whole) for x in v]
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if whole and isinstance(v, float) and v.is_integer() and abs(v) < MAX_INT_EXCLUSIVE:
        return int(v)
    return v


def dump(model: type[BaseModel], data: Any, *, exclude_unset: bool = False) -> Any:
    """A route's answer through its response model (issue 35): ``data`` (a stored item, a dict)
    validated by ``model`` and serialised to JSON types. Keys the model does not declare are
    dropped (response models keep pydantic's default ``extra="ignore"``), so what the OpenAPI
    document shows is what leaves the service and nothing else. ``exclude_unset``: keys absent
    from ``data`` stay absent (views of stored items, whose optional attributes exist only once
    set); otherwise every declared field is present, ``null`` when unknown. Numbers come out as
    the envelope writes stored ones: a whole number as an integer (``40``, not ``40.0``)."""
    if isinstance(data, dict):
        data = _plain(data, whole=False)
    out = _plain(model.model_validate(data, context={RESPONSE_CONTEXT: True}).model_dump(mode="json", by_alias=True, exclude_unset=exclude_unset), whole=True)
    if isinstance(out, dict):
        from .responses import Shaped

        return Shaped(out)
    return out
