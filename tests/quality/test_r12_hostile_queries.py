"""Issue 32: hostile values for every query parameter of every GET route of the three services,
through the real handlers (``fuzz/hostile.py: query_cases``; ``make fuzz`` sends the same cases to
the local runtime).

Cursors (forged, decodable JSON like ``eyJhIjoxfQ``, truncated, non-base64, oversized, and real
cursors of another list and of another caller harvested from the service's own answers), page
numbers and limits (negative, 0, 10^40, -10^40, non-numeric, 5,000 digits), dates, sort keys
and free strings (NUL, CR/LF, 5,000 characters). Every answer is below 500 and every JSON 4xx is
in the service's error format; a forged cursor on a list route is refused (4xx), never ignored.
"""
from __future__ import annotations

import importlib
import re
from urllib.parse import urlencode

import jsonschema
import pytest

from fuzz import hostile
from tests.quality.test_hostile_bodies import _document, _principals

EXCLUDED = re.compile(r"^GET /(openapi\.json|docs)")


def _choose(api, path: str, principals: list[dict]) -> dict:
    for h in principals:
        if api.request("GET", path, headers=h).status not in (401, 403):
            return h
    return principals[0]


def _harvest(api, doc: dict, principals: list[dict]) -> tuple[str, ...]:
    """Real cursors of the service: page 1 (limit 1) of every list route without path
    parameters, as each principal (so each route also gets cursors of other lists and callers)."""
    found: list[str] = []
    for path, ops in sorted(doc["paths"].items()):
        op = ops.get("get") or {}
        if "{" in path or not any(p.get("name") == "cursor" for p in op.get("parameters") or []):
            continue
        for h in principals:
            r = api.request("GET", f"{path}?{urlencode({'limit': 1})}", headers=h)
            if r.status == 200 and r.body[:1] == b"{":
                found += hostile.cursors_in(r.json())[:1]
    return tuple(dict.fromkeys(found))[:6]


def _seed(service: str, request, principals: list[dict]) -> None:
    """A few items in some lists, so that page 1 of them has a next cursor to harvest."""
    api = getattr(request.getfixturevalue(f"{service}_app"), service)
    if service == "campaigns":
        for i in range(3):
            api.post("/lists", json={"name": f"fuzz list {i}"}, headers=principals[0])
    elif service == "exams":
        for i in range(3):
            api.post("/api/questions", json={"question_text": f"Q{i}?", "question_type": "mcq", "option_a": "a",
                                             "option_b": "b", "correct_answer": "A", "marks": 1}, headers=principals[0])


@pytest.mark.parametrize("service", ["campaigns", "exams", "internships"])
def test_hostile_query_parameters_on_every_route(request, service):
    api = getattr(request.getfixturevalue(f"{service}_app"), service)
    schema = importlib.import_module(f"{service}.http").OPENAPI_ERROR_SCHEMA
    principals = _principals(request, service)
    _seed(service, request, principals)
    doc = _document(service)
    cursors = _harvest(api, doc, principals)
    chosen: dict[str, dict] = {}
    failures: list[str] = []
    n = 0
    # quick profile: 3 values per parameter (every cursor value always); make fuzz sends them all
    for case in hostile.query_cases(doc, cursors, per_param=3):
        route = case.label.split(":", 1)[0]
        if EXCLUDED.match(route):
            continue
        bare = case.path.split("?", 1)[0]
        if route not in chosen:
            chosen[route] = _choose(api, bare, principals)
        r = api.request("GET", case.path, headers=chosen[route])
        n += 1
        if r.status >= 500:
            failures.append(f"{case.label} -> {r.status} {r.text[:160]}")
            continue
        if 400 <= r.status < 500 and "json" in (r.headers.get("content-type") or ""):
            try:
                jsonschema.validate(r.json(), schema)
            except Exception as exc:  # noqa: BLE001 - reported below
                failures.append(f"{case.label} -> {r.status} not in the error format: {str(exc)[:120]}")
        forged = any(f"?cursor={v!r}" in case.label for v in hostile.FORGED_CURSORS[:2])
        if forged and hostile.PLACEHOLDER not in bare and r.status == 200:
            failures.append(f"{case.label} -> 200: a forged cursor was not refused")
    print(f"\nhostile queries: {service}: {n} cases, {len(cursors)} harvested cursors, {len(failures)} failures")
    assert n > 60
    if service in ("campaigns", "exams"):
        assert cursors, "no real cursor harvested: the other-list / other-caller cases did not run"
    assert failures == [], "\n".join(failures[:40])
