"""Fixtures of the round-11 conformance tests (a black-box client that knows only the spec)."""
from __future__ import annotations

import pytest

from tests.exams.delivery.delivery_helpers import Tenant


@pytest.fixture
def tenant(exams_app, exam_users) -> Tenant:
    client = exam_users.client(name="Acme", plan_id="enterprise")
    ca = exam_users.client_admin(client["id"])
    return Tenant(exams_app, exam_users, client, ca, [exam_users.student(client["id"])])
