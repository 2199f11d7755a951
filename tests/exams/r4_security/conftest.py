"""Fixtures of the round-4 security tests: two tenants (client, client admin, one student each)."""
from __future__ import annotations

import pytest

from tests.exams.delivery.conftest import atomic_ddb  # noqa: F401 - the fixture, by name
from tests.exams.delivery.delivery_helpers import Tenant


@pytest.fixture
def two_tenants(exams_app, exam_users) -> tuple[Tenant, Tenant]:
    out = []
    for name in ("Acme", "Globex"):
        client = exam_users.client(name=name, plan_id="enterprise")
        ca = exam_users.client_admin(client["id"])
        out.append(Tenant(exams_app, exam_users, client, ca, [exam_users.student(client["id"])]))
    return out[0], out[1]


@pytest.fixture
def tenant(exams_app, exam_users) -> Tenant:
    client = exam_users.client(name="Acme", plan_id="enterprise")
    ca = exam_users.client_admin(client["id"])
    return Tenant(exams_app, exam_users, client, ca, [exam_users.student(client["id"])])
