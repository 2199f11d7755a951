"""``lambdakit.ddb.Table.transact``: contention is retried, then reported as ``Contention``
(503, ``Retry-After: 1``) in each service's error format; real condition failures are
unchanged ``ConditionFailed`` with per-op reasons.

moto never reports ``TransactionConflict`` (it evaluates one request at a time), so
``conflicts()`` makes DynamoDB answer the first calls the way AWS does when another
transaction holds an item: a botocore ``before-call`` hook returns a
``TransactionCanceledException`` with those cancellation reasons; later calls reach moto.
"""
from __future__ import annotations

import contextlib
import time
import uuid
from typing import Iterator

import pytest

from lambdakit import aws, ddb
from lambdakit.errors import ConditionFailed, Contention


class Injected:
    def __init__(self, times: int | None, reasons: list[str]) -> None:
        self.times, self.reasons, self.calls = times, reasons, 0

    def __call__(self, model, params, **kw):
        if model.name != "TransactWriteItems":
            return None
        self.calls += 1
        if self.times is not None and self.calls > self.times:
            return None  # the real call
        reasons = self.reasons or ["None", "TransactionConflict"]
        parsed = {"Error": {"Code": "TransactionCanceledException",
                            "Message": f"Transaction cancelled, please refer cancellation reasons for specific "
                                       f"reasons [{', '.join(reasons)}]"},
                  "CancellationReasons": [{"Code": r} for r in reasons],
                  "ResponseMetadata": {"HTTPStatusCode": 400, "HTTPHeaders": {}, "RetryAttempts": 0}}
        from botocore.awsrequest import AWSResponse

        return AWSResponse("http://dynamodb", 400, {}, None), parsed


@contextlib.contextmanager
def conflicts(times: int | None = None, reasons: list[str] | None = None) -> Iterator[Injected]:
    """The next ``times`` TransactWriteItems calls (all when ``None``) are cancelled with
    ``reasons`` (default: ``TransactionConflict`` on every item)."""
    hook = Injected(times, list(reasons or []))
    events = aws.client("dynamodb").meta.events
    events.register("before-call.dynamodb.TransactWriteItems", hook, unique_id="r3-conflicts")
    try:
        yield hook
    finally:
        events.unregister("before-call.dynamodb.TransactWriteItems", unique_id="r3-conflicts")


@pytest.fixture
def table(internships_app):
    from internships.settings import settings

    return ddb.Table(settings().table_name)


def ops(pk: str) -> list[dict]:
    return [{"put": {"pk": pk, "sk": "ITEM", "v": 1}, "condition": "attribute_not_exists(pk)"},
            {"update": ("COUNTER#T", "TOTAL"), "add": {"n": 1}}]


def counter(table) -> int:
    return int((table.get("COUNTER#T", "TOTAL", consistent=True) or {}).get("n", 0))


def test_a_conflict_is_retried_then_the_transaction_commits_once(table):
    pk = f"T#{uuid.uuid4()}"
    with conflicts(times=2) as hook:
        table.transact(ops(pk))
    assert hook.calls == 3
    assert table.get(pk, "ITEM", consistent=True) == {"pk": pk, "sk": "ITEM", "v": 1}
    assert counter(table) == 1


def test_throttled_items_are_retried_too(table):
    pk = f"T#{uuid.uuid4()}"
    with conflicts(times=1, reasons=["None", "ThrottlingError"]) as hook:
        table.transact(ops(pk))
    assert hook.calls == 2 and counter(table) == 1


def test_a_persistent_conflict_raises_contention_within_the_budget(table):
    pk = f"T#{uuid.uuid4()}"
    t0 = time.monotonic()
    with conflicts(reasons=["None", "TransactionConflict"]) as hook, pytest.raises(Contention) as err:
        table.transact(ops(pk))
    took = time.monotonic() - t0
    assert hook.calls == ddb.TRANSACT_ATTEMPTS
    assert took <= ddb.TRANSACT_BUDGET + 0.5
    e = err.value
    assert not isinstance(e, ConditionFailed)
    assert (e.status, e.code, e.headers) == (503, "CONTENTION", {"Retry-After": "1"})
    assert e.reasons == ["None", "TransactionConflict"]
    assert table.get(pk, "ITEM", consistent=True) is None and counter(table) == 0


def test_a_failed_condition_is_not_retried_and_keeps_its_reasons(table):
    pk = f"T#{uuid.uuid4()}"
    table.put({"pk": pk, "sk": "ITEM"})
    with conflicts(times=0) as hook, pytest.raises(ConditionFailed) as err:
        table.transact(ops(pk))  # moto evaluates it: the put's condition fails
    assert hook.calls == 1
    assert err.value.reasons == ["ConditionalCheckFailed", "None"]
    assert counter(table) == 0


def test_a_condition_failure_next_to_a_conflict_is_a_condition_failure(table):
    with conflicts(reasons=["ConditionalCheckFailed", "TransactionConflict"]) as hook, \
            pytest.raises(ConditionFailed) as err:
        table.transact(ops(f"T#{uuid.uuid4()}"))
    assert hook.calls == 1
    assert err.value.reasons == ["ConditionalCheckFailed", "TransactionConflict"]


@pytest.mark.parametrize("reasons,expected", [
    (["None", "TransactionConflict"], True), (["ThrottlingError"], True),
    (["None", "None"], False), ([], False), (["ConditionalCheckFailed", "TransactionConflict"], False),
    (["ValidationError"], False), (["ItemCollectionSizeLimitExceeded", "TransactionConflict"], False),
])
def test_is_contention(reasons, expected):
    assert ddb.is_contention(reasons) is expected


@pytest.mark.parametrize("service", ["campaigns", "exams", "internships"])
def test_contention_renders_as_a_clean_503_in_each_service_format(service, request):
    """The service's whole app (its middlewares too, e.g. exams' rate limiter) on a provisioned stack."""
    import importlib
    import json

    import jsonschema
    from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

    from local_runtime.invoke import LambdaContext

    request.getfixturevalue(f"{service}_app")
    http = importlib.import_module(f"{service}.http")
    router = APIGatewayHttpRouter()

    @router.get("/busy")
    def busy():
        raise Contention(reasons=["TransactionConflict"])

    app = http.build_app(router)
    event = {"version": "2.0", "routeKey": "GET /busy", "rawPath": "/busy", "rawQueryString": "",
             "headers": {}, "isBase64Encoded": False,
             "requestContext": {"http": {"method": "GET", "path": "/busy", "sourceIp": "127.0.0.1"},
                                "requestId": "r", "routeKey": "GET /busy", "stage": "$default"}}
    resp = app.resolve(event, LambdaContext("busy", 128, 3))
    headers = {k.lower(): v for k, v in (resp.get("headers") or {}).items()}
    assert resp["statusCode"] == 503
    assert headers.get("retry-after") == "1"
    body = json.loads(resp["body"])
    jsonschema.validate(body, http.OPENAPI_ERROR_SCHEMA)
    assert "Traceback" not in resp["body"]
    assert {"campaigns": lambda b: b["error"]["code"] == "CONTENTION",
            "exams": lambda b: (b["error"], b["status"]) == ("CONTENTION", 503),
            "internships": lambda b: b["error"] == "The resource is busy, please retry"}[service](body)
