"""The narrowed DynamoDB permissions hold for the calls the functions really make (issue #17).

A botocore hook records every DynamoDB call made while a function runs (action per item and the
item's partition key) and checks it against that function's policies in the template, evaluated
like IAM for the ``dynamodb:LeadingKeys`` condition: SAM's DynamoDB policy templates, ``Allow``
statements with ``ForAllValues:StringLike`` and ``Deny`` statements with
``ForAnyValue:StringLike``. Requests go through the real handlers (read-only functions,
API-key authentication, tracking) on moto.
"""
from __future__ import annotations

import contextvars
import fnmatch
import json
from typing import Any, Iterator

import pytest

from local_runtime import invoke as inv
from local_runtime.testing import services
from tests.exams.conftest import ExamUsers, exams_jwks  # noqa: F401 - exams_jwks is a fixture

SVCS = services()
_CURRENT: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar("fn", default=None)

SAM_TEMPLATES = {
    "DynamoDBReadPolicy": {"GetItem", "Scan", "Query", "BatchGetItem", "DescribeTable"},
    "DynamoDBCrudPolicy": {"GetItem", "DeleteItem", "PutItem", "Scan", "Query", "UpdateItem", "BatchWriteItem",
                           "BatchGetItem", "DescribeTable", "ConditionCheckItem"},
}
TRANSACT = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem", "ConditionCheck": "ConditionCheckItem",
            "Get": "GetItem"}


def _pk(key: dict | None) -> str | None:
    v = (key or {}).get("pk")
    return v.get("S") if isinstance(v, dict) else None


def _items(op: str, body: dict) -> Iterator[tuple[str, str | None, bool]]:
    """(IAM action, partition key or None, on the base table) of each item a call touches."""
    if op in ("GetItem", "PutItem", "UpdateItem", "DeleteItem"):
        yield op, _pk(body.get("Key") or body.get("Item")), True
    elif op == "Query":
        names = body.get("ExpressionAttributeNames") or {}
        values = body.get("ExpressionAttributeValues") or {}
        base = "IndexName" not in body
        for part in str(body.get("KeyConditionExpression", "")).split(" AND "):
            left, _, right = part.partition("=")
            if names.get(left.strip(), left.strip()) == "pk" and base:
                yield op, (values.get(right.strip()) or {}).get("S"), True
                return
        yield op, None, base
    elif op == "Scan":
        yield op, None, "IndexName" not in body
    elif op == "BatchGetItem":
        for spec in (body.get("RequestItems") or {}).values():
            for k in spec.get("Keys", []):
                yield op, _pk(k), True
    elif op == "BatchWriteItem":
        for reqs in (body.get("RequestItems") or {}).values():
            for r in reqs:
                yield op, _pk((r.get("PutRequest") or {}).get("Item") or (r.get("DeleteRequest") or {}).get("Key")), True
    elif op in ("TransactWriteItems", "TransactGetItems"):
        for it in body.get("TransactItems", []):
            for kind, spec in it.items():
                yield TRANSACT[kind], _pk(spec.get("Key") or spec.get("Item")), True
    else:
        yield op, None, True


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[tuple[str, str], str, str | None, bool]] = []

    def __call__(self, model: Any = None, params: Any = None, **_: Any) -> None:
        fn = _CURRENT.get()
        if fn is None or model is None or model.service_model.service_name != "dynamodb":
            return
        raw = (params or {}).get("body") or b"{}"
        body = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
        for action, pk, base in _items(model.name, body):
            self.calls.append((fn, action, pk, base))


@pytest.fixture
def recorder(monkeypatch):
    from lambdakit import aws

    rec = Recorder()
    # Through lambdakit.aws, so sessions and clients made before or after this point all carry it.
    aws.register_hook("before-call.dynamodb", rec, unique_id="policy-calls")
    orig = inv.invoke

    def invoke(fn, event):
        token = _CURRENT.set((fn.service, fn.logical_id))
        try:
            return orig(fn, event)
        finally:
            _CURRENT.reset(token)

    monkeypatch.setattr(inv, "invoke", invoke)
    yield rec
    aws.unregister_hook("before-call.dynamodb", "policy-calls")


def _statements(service: str, lid: str) -> Iterator[dict]:
    for pol in SVCS[service].functions[lid].properties.get("Policies") or []:
        if not isinstance(pol, dict):
            continue
        for name, actions in SAM_TEMPLATES.items():
            if name in pol:
                yield {"Effect": "Allow", "Action": [f"dynamodb:{a}" for a in actions]}
        for st in pol.get("Statement", []):
            yield st


def _matches(patterns: list[str], pk: str | None) -> bool:
    return pk is not None and any(fnmatch.fnmatchcase(pk, p) for p in patterns)


def allowed(service: str, lid: str, action: str, pk: str | None, base: bool) -> bool:
    """IAM's answer for one item action of ``lid`` (DynamoDB statements only; ``pk`` None = no leading key)."""
    verdict = False
    for st in _statements(service, lid):
        acts = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
        if f"dynamodb:{action}" not in acts:
            continue
        cond = st.get("Condition") or {}
        if st["Effect"] == "Deny":
            keys = (cond.get("ForAnyValue:StringLike") or {}).get("dynamodb:LeadingKeys")
            if (keys is None and base) or (keys is not None and _matches(keys, pk)):
                return False
        elif st["Effect"] == "Allow":
            keys = (cond.get("ForAllValues:StringLike") or {}).get("dynamodb:LeadingKeys")
            if keys is None or _matches(keys, pk):
                verdict = True
    return verdict


def _assert_allowed(rec: Recorder, expect_functions: set[str]) -> None:
    seen = {fn for (_, fn), *_ in rec.calls}
    assert expect_functions <= seen, f"not exercised: {expect_functions - seen}"
    denied = sorted({(f"{s}.{fn}", a, pk) for (s, fn), a, pk, base in rec.calls if not allowed(s, fn, a, pk, base)})
    assert not denied, f"calls the template's policies would deny: {denied}"


# ---------------------------------------------------------------- the evaluator itself
def test_evaluator_denies_what_the_policies_deny():
    assert allowed("campaigns", "AnalyticsFunction", "Query", "ACCT#a#AN", True)
    assert allowed("campaigns", "AnalyticsFunction", "UpdateItem", "RL#key:1:plan", True)
    assert not allowed("campaigns", "AnalyticsFunction", "UpdateItem", "ACCT#a#AN", True)
    assert not allowed("campaigns", "AnalyticsFunction", "PutItem", "RL#x", True)
    assert allowed("campaigns", "ContactsFunction", "GetItem", "APIKEYHASH#abc", True)
    assert not allowed("campaigns", "TrackingFunction", "GetItem", "APIKEYHASH#abc", True)
    assert allowed("campaigns", "TrackingFunction", "GetItem", "SEND#abc", True)
    assert not allowed("campaigns", "SendWorkerFunction", "Scan", None, True)
    assert not allowed("internships", "CatalogFunction", "UpdateItem", "RL#x", True)
    assert not allowed("exams", "ReportsFunction", "PutItem", "ATTEMPT#x", True)
    assert allowed("exams", "ReportsFunction", "PutItem", "AUTHSEEN#u#1", True)


# ---------------------------------------------------------------- campaigns
def test_campaigns_functions_stay_within_their_table_permissions(campaigns_app, recorder):
    from campaigns.auth import create_key

    secret, _ = create_key("acct-iam", "iam", role="admin")
    h = {"Authorization": f"Bearer {secret}"}
    c = campaigns_app.campaigns
    assert c.get("/health").status == 200
    assert c.get("/api", headers=h).status == 200
    q = {"start_date": "2025-01-01", "end_date": "2025-01-31"}
    for path in ("/analytics/overall", "/analytics/providers", "/analytics/geographic", "/analytics/devices"):
        assert c.get(path, headers=h, query=q).status == 200, path
    assert c.get("/campaigns/nope/analytics", headers=h).status == 404
    r = c.post("/lists", json={"name": "IAM", "visibility": "private"}, headers=h)
    assert r.status == 201, r.text
    assert c.get("/t/o/not-a-token").status in (200, 404)
    assert c.get("/unsubscribe/not-a-token").status in (200, 400, 404)
    campaigns_app.campaigns.invoke_function("DispatcherFunction", {"source": "aws.events",
                                                                   "detail-type": "Scheduled Event"})
    _assert_allowed(recorder, {"HealthFunction", "AnalyticsFunction", "ListsFunction", "DispatcherFunction"})
    hash_reads = {fn for (_, fn), a, pk, _b in recorder.calls if (pk or "").startswith("APIKEYHASH#")}
    assert hash_reads and hash_reads <= {"HealthFunction", "AnalyticsFunction", "ListsFunction"}


# ---------------------------------------------------------------- internships
def test_internships_read_only_functions_only_read(internships_app, recorder):
    c = internships_app.internships
    assert c.get("/api/health").status == 200
    assert c.get("/api/domains").status == 200
    assert c.get("/api/domains/no-such-domain").status == 404
    r = c.post("/api/coupons/validate", json={"code": "NOPE", "domain_slug": "x"})
    assert r.status < 500, r.text
    _assert_allowed(recorder, {"CatalogFunction"})


# ---------------------------------------------------------------- exams
@pytest.mark.usefixtures("exams_jwks")
def test_exams_read_only_functions_write_only_bookkeeping(exams_app, recorder):
    h = ExamUsers(exams_app).super_admin().headers
    c = exams_app.exams
    assert c.get("/health").status == 200
    assert c.get("/").status == 200
    for path in ("/api/stats", "/api/stats/dashboard"):
        assert c.get(path, headers=h).status == 200, path
    assert c.get("/api/analytics/tests/nope", headers=h).status in (403, 404)
    assert c.get("/api/attempts/nope/report", headers=h).status in (403, 404)
    assert c.get("/api/stats", headers={"Authorization": "Bearer forged.token.value"}).status == 401
    _assert_allowed(recorder, {"HealthFunction", "AnalyticsFunction", "ReportsFunction"})
    writes = {(fn, pk.split("#")[0]) for (_, fn), a, pk, _b in recorder.calls
              if a in ("PutItem", "UpdateItem") and pk}
    assert ("AnalyticsFunction", "AUTHSEEN") in writes  # the login audit really is written by a read-only function


# ---------------------------------------------------------------- occupancy markers (issue 21)
@pytest.mark.parametrize(("service", "lid", "action", "pk"), [
    # exams: starts and submissions mark (AttemptsFunction; ProctoringFunction's auto-submit), the
    # sweep marks (its auto-submit), reads and clears
    ("exams", "AttemptsFunction", "UpdateItem", "SWEEPMARK"),
    ("exams", "ProctoringFunction", "UpdateItem", "SWEEPMARK"),
    ("exams", "AttemptSweepFunction", "UpdateItem", "SWEEPMARK"),
    ("exams", "AttemptSweepFunction", "BatchGetItem", "SWEEPMARK"),
    ("exams", "AttemptSweepFunction", "DeleteItem", "SWEEPMARK"),
    # campaigns: the relays' writers mark, the dispatcher reads and clears
    ("campaigns", "ContactsFunction", "UpdateItem", "WHRELAY"),
    ("campaigns", "WebhooksFunction", "UpdateItem", "WHRELAY"),
    ("campaigns", "SendingFunction", "UpdateItem", "BULKRELAY"),
    ("campaigns", "DispatcherFunction", "UpdateItem", "WHRELAY"),
    ("campaigns", "DispatcherFunction", "BatchGetItem", "WHRELAY"),
    ("campaigns", "DispatcherFunction", "BatchGetItem", "BULKRELAY"),
    ("campaigns", "DispatcherFunction", "DeleteItem", "WHRELAY"),
    ("campaigns", "DispatcherFunction", "DeleteItem", "BULKRELAY"),
])
def test_occupancy_marker_items_are_allowed_to_their_writers_and_sweeps(service, lid, action, pk):
    assert allowed(service, lid, action, pk, True)


@pytest.mark.usefixtures("exams_jwks")
def test_exams_attempt_sweep_reads_and_clears_its_markers_within_its_permissions(exams_app, recorder):
    from exams.attempts import repository as repo

    repo.table().put({"pk": repo.MARK_PK, "sk": repo.open_mark(0)[1], "marked_at": 1})  # old: clearable
    out = exams_app.exams.invoke_function("AttemptSweepFunction", {"source": "aws.events",
                                                                   "detail-type": "Scheduled Event"})
    assert out["submitted"] == 0
    assert repo.table().get(*repo.open_mark(0), consistent=True) is None  # cleared
    _assert_allowed(recorder, {"AttemptSweepFunction"})
    done = {a for (_, fn), a, pk, _b in recorder.calls if fn == "AttemptSweepFunction" and pk == repo.MARK_PK}
    assert {"BatchGetItem", "DeleteItem"} <= done
