"""Fixtures of the quality suite (security, fault and concurrency properties across services).

The services' own fixtures are reused by import (they create real keys, users and tokens
through each service's code): campaigns ``make_key``/``admin_key``/``auth_headers``, exams
``exam_users``/``exams_jwks``, internships ``intern_users``/``intern_seed``/``atomic_moto``.

``assert_error(service, result, *statuses)`` checks a clean 4xx: one of the expected statuses
and a body that validates against the service's documented error schema
(``<service>.http.OPENAPI_ERROR_SCHEMA``) — never a 5xx, never a stack trace.
"""
from __future__ import annotations

import importlib

import pytest

from tests.campaigns.conftest import admin_key, auth_headers, camp, make_key  # noqa: F401
from tests.exams.conftest import exam_users, exams_jwks, rotate_jwks  # noqa: F401
from tests.exams.delivery.delivery_helpers import Tenant
from tests.internships.conftest import intern_seed, intern_users  # noqa: F401

LEAK_MARKERS = ("Traceback", 'File "/', "botocore", "Exception(", "pydantic_core")


def assert_error(service: str, r, *statuses: int) -> dict:
    import jsonschema

    assert 400 <= r.status < 500, f"{service}: expected a 4xx, got {r.status}: {r.text[:300]}"
    if statuses:
        assert r.status in statuses, f"{service}: expected {statuses}, got {r.status}: {r.text[:300]}"
    body = r.json()
    schema = importlib.import_module(f"{service}.http").OPENAPI_ERROR_SCHEMA
    jsonschema.validate(body, schema)
    for marker in LEAK_MARKERS:
        assert marker not in r.text, f"{service}: error body leaks internals ({marker}): {r.text[:300]}"
    return body


@pytest.fixture
def exams_tenants(exams_app, exam_users):  # noqa: F811 - the imported fixture, by name
    """Two tenants (client + client admin + one student each)."""
    out = []
    for name in ("Acme", "Globex"):
        client = exam_users.client(name=name, plan_id="enterprise")
        ca = exam_users.client_admin(client["id"])
        out.append(Tenant(exams_app, exam_users, client, ca, [exam_users.student(client["id"])]))
    return out
