"""Fixtures of the delivery slice (see delivery_helpers for the helpers)."""
from __future__ import annotations

import pytest

from tests.exams.delivery.delivery_helpers import Tenant


@pytest.fixture
def tenant(exams_app, exam_users) -> Tenant:
    client = exam_users.client(name="Acme", plan_id="enterprise")
    ca = exam_users.client_admin(client["id"])
    return Tenant(exams_app, exam_users, client, ca, [exam_users.student(client["id"])])


@pytest.fixture
def atomic_ddb(monkeypatch):
    """DynamoDB serialises writes per item and evaluates conditions atomically; moto's in-process
    backend does not under threads. Serialise its operations so concurrency tests see DynamoDB's
    guarantee (the product code is unchanged)."""
    import threading

    from moto.dynamodb.models import DynamoDBBackend

    lock = threading.RLock()
    for name in ("put_item", "update_item", "delete_item", "get_item", "query", "transact_write_items",
                 "batch_get_item", "batch_write_item"):
        orig = getattr(DynamoDBBackend, name, None)
        if orig is None:
            continue

        def wrapped(self, *a, __orig=orig, **kw):
            with lock:
                return __orig(self, *a, **kw)

        monkeypatch.setattr(DynamoDBBackend, name, wrapped)
    return lock
