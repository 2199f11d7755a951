"""Issue 17, the class-level guard: hostile JSON on every body-taking route of the three services,
through the real handlers (``fuzz/hostile.py`` builds the cases from each service's OpenAPI
document, as generated from the code): NaN/Infinity/1e999, unpaired surrogates (values and
keys), 10^30 and 39-digit integers, deep nesting, 1 MB strings, CR/LF in every string, and
``javascript:``/``data:`` in every URL-like property.

Every answer is below 500; every JSON 4xx is in the service's error format (public HTML pages such
as the unsubscribe page answer their own HTML); no 2xx answer stores a
non-http(s) URL (checked in the response and, at the end, in every DynamoDB item of the service),
and no campaigns header-bound field (``from_name``, ``reply_to``, ``subject``, at any depth) is
stored with CR or LF (the cases put CR/LF into every string, nested ones included).
"""
from __future__ import annotations

import importlib
import re

import jsonschema
import pytest

from fuzz import hostile

EXCLUDED = re.compile(r"^(POST|PUT|PATCH|DELETE) /api/auth/logout\b")  # would revoke the principal's token
BAD_URL_VALUE = re.compile(r"^\s*(javascript|data|vbscript):", re.I)


def _document(service: str) -> dict:
    from local_runtime.openapi import service_document
    from local_runtime.stack import load_all

    return service_document(load_all()[service])


def _principals(request, service: str) -> list[dict]:
    if service == "campaigns":
        key = request.getfixturevalue("make_key")(role="admin")
        return [{"Authorization": f"Bearer {key}"}]
    if service == "exams":
        users = request.getfixturevalue("exam_users")
        client = users.client(name="Hostile", plan_id="enterprise")
        return [users.client_admin(client["id"]).headers, users.super_admin().headers,
                users.student(client["id"]).headers]
    users = request.getfixturevalue("intern_users")
    return [users.staff("super_admin").headers, users.student().headers]


def _stored_strings(predicate) -> list[str]:
    """``table: name=value`` of every string attribute (nested maps and lists included) of every
    item of the local tables for which ``predicate(name, value)`` holds."""
    import boto3

    ddb = boto3.client("dynamodb", region_name="us-east-1")
    found: list[str] = []
    for table in ddb.list_tables()["TableNames"]:
        for page in ddb.get_paginator("scan").paginate(TableName=table):
            for item in page["Items"]:
                stack = list(item.items())
                while stack:
                    name, value = stack.pop()
                    if "S" in value and predicate(name, value["S"]):
                        found.append(f"{table}: {name}={value['S'][:60]!r}")
                    if "M" in value:
                        stack.extend(value["M"].items())
                    if "L" in value:
                        stack.extend((name, v) for v in value["L"])
    return found


def _stored_bad_urls() -> list[str]:
    """URL-like attributes holding a non-http(s) URL."""
    return _stored_strings(lambda name, v: bool(hostile.URL_LIKE.search(name) and BAD_URL_VALUE.match(v)))


#: Campaigns' header-bound fields (issue 17 item 4): stored anywhere (campaign settings, A/B
#: variations, templates, providers), they never hold CR or LF.
HEADER_BOUND = re.compile(r"^(from_name|reply_to|subject)$")


def _stored_header_breaks() -> list[str]:
    return _stored_strings(lambda name, v: bool(HEADER_BOUND.match(name) and ("\r" in v or "\n" in v)))


@pytest.mark.parametrize("service", ["campaigns", "exams", "internships"])
def test_hostile_bodies_on_every_route(request, service):
    request.getfixturevalue(f"{service}_app")
    api = getattr(request.getfixturevalue(f"{service}_app"), service)
    schema = importlib.import_module(f"{service}.http").OPENAPI_ERROR_SCHEMA
    principals = _principals(request, service)
    doc = _document(service)
    failures: list[str] = []
    chosen: dict[str, dict] = {}
    n = 0
    routes: set[str] = set()
    for case in hostile.cases(doc):
        route = case.label.split(":", 1)[0]
        if EXCLUDED.match(route):
            continue
        routes.add(route)
        if route not in chosen:
            # the first principal the route does not answer 401/403 for
            chosen[route] = principals[0]
            for h in principals:
                r = api.request(case.method, case.path, body=b"{}", headers={**h, "content-type": "application/json"})
                if r.status not in (401, 403):
                    chosen[route] = h
                    break
        r = api.request(case.method, case.path, body=case.body,
                        headers={**chosen[route], "content-type": "application/json"})
        n += 1
        if r.status >= 500:
            failures.append(f"{case.label} -> {r.status} {r.text[:160]}")
            continue
        if r.status == 413 and len(case.body) > 4_000_000 and r.json() == {"message": "Request Entity Too Large"}:
            continue  # over Lambda's 6 MB event: API Gateway's own 413, the function never runs (as on AWS)
        if 400 <= r.status < 500 and "json" in (r.headers.get("content-type") or ""):
            try:
                jsonschema.validate(r.json(), schema)
            except Exception as exc:  # noqa: BLE001 - reported below
                failures.append(f"{case.label} -> {r.status} not in the error format: {str(exc)[:120]}")
        elif 200 <= r.status < 300 and case.url_field and r.body[:1] in (b"{", b"["):
            bad = hostile.stored_bad_url(r.json())
            if bad:
                failures.append(f"{case.label} -> {r.status} stored {bad[:60]}")
    failures += [f"stored: {x}" for x in _stored_bad_urls()]
    if service == "campaigns":
        failures += [f"stored CR/LF in a header-bound field: {x}" for x in _stored_header_breaks()]
    print(f"\nhostile bodies: {service}: {len(routes)} routes, {n} cases, {len(failures)} failures")
    assert n > 100 and len(routes) >= 10
    assert failures == [], "\n".join(failures[:40])
