"""Issue 21 (cold first request): a handler imports what its routes share, and a route imports
only what it uses. Modules only other routes (the writes, the guest policy, grading, S3, the
request-body models) use stay out of a cold process that serves a read.

* At import: each HTTP handler in a fresh interpreter, its ``sys.modules`` checked.
* During a request: every import statement a request runs is recorded (``builtins.__import__``:
  also the imports of modules already loaded by other tests), through the real handler. No handler
  imports the boto3 package, nor does a read: lambdakit's clients, codec and filter conditions
  (``lambdakit.conditions``) do without it (docs/platform.md); a filtered list builds its filter
  expression with them."""
from __future__ import annotations

import builtins
import contextlib
import importlib._bootstrap as bootstrap
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.exams.delivery.test_route_reads import get

ROOT = Path(__file__).resolve().parents[3]

#: handler module -> modules it must not import at import time (only some of its routes use them)
NOT_AT_IMPORT = {
    "exams.attempts.handler": {"exams.attempts.start", "exams.attempts.answers", "exams.attempts.submission",
                               "exams.attempts.grades", "exams.attempts.guests", "exams.grading",
                               "exams.papers.service", "exams.attempts.models", "exams.papers.repository"},
    "exams.proctoring.handler": {"exams.attempts.submission", "exams.grading", "lambdakit.multipart",
                                 "lambdakit.s3", "exams.proctoring.models"},
    "exams.users.handler": {"exams.users.models", "pydantic.networks", "exams.billing.repository",
                            "exams.apidoc"},
    "exams.clients.handler": {"exams.clients.models", "lambdakit.validated", "exams.billing.subscriptions",
                              "exams.billing.guards", "exams.billing.catalog"},
    "exams.billing.handler": {"exams.billing.packages", "exams.billing.models"},
    "exams.admin.handler": {"exams.admin.models"},
    "exams.analytics.handler": {"exams.analytics.itemstats", "exams.grading", "exams.analytics.models"},
    "exams.questions.handler": {"exams.questions.rules", "exams.questions.models"},
    "exams.papers.handler": {"exams.papers.models", "exams.grading"},
}
#: the audit rows' storage (and its sharded counters): only writes (and the audit log's total) use it
for _handler in set(NOT_AT_IMPORT) - {"exams.admin.handler"}:
    NOT_AT_IMPORT[_handler] = NOT_AT_IMPORT[_handler] | {"exams.audit.repository"}
#: the boto3 package (and its condition builders, and s3transfer that comes with it): no handler needs it
BOTO3 = {"boto3", "boto3.dynamodb", "boto3.dynamodb.conditions", "s3transfer"}
for _handler in NOT_AT_IMPORT:
    NOT_AT_IMPORT[_handler] = NOT_AT_IMPORT[_handler] | BOTO3


@pytest.mark.parametrize("handler", sorted(NOT_AT_IMPORT))
def test_a_handler_does_not_import_what_only_other_routes_use(handler):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "shared"), str(ROOT / "functions" / "exams")]),
           "EXAMS_STAGE": "local"}
    code = f"import importlib, json, sys; importlib.import_module({handler!r}); print(json.dumps(sorted(sys.modules)))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    loaded = set(json.loads(r.stdout.strip().splitlines()[-1]))
    assert handler in loaded
    assert not (NOT_AT_IMPORT[handler] & loaded), sorted(NOT_AT_IMPORT[handler] & loaded)


@contextlib.contextmanager
def imports_requested():
    """Every module an import statement names inside the block (``from . import x``: the package
    and ``package.x``), loaded before or not."""
    seen: set[str] = set()
    real = builtins.__import__

    def record(name, globals=None, locals=None, fromlist=(), level=0):
        base = name
        if level and globals:
            with contextlib.suppress(Exception):
                base = bootstrap._resolve_name(name, globals.get("__package__") or "", level)
        seen.add(base)
        for f in fromlist or ():
            seen.add(f"{base}.{f}")
        return real(name, globals, locals, fromlist, level)

    builtins.__import__ = record
    try:
        yield seen
    finally:
        builtins.__import__ = real


def _requests(exams_app, exam_users, tenant) -> list[tuple[str, object, dict, set[str]]]:
    """(path, user, query, modules the request must not import) of each read route checked."""
    sa = exam_users.super_admin()
    t = tenant.test([q["id"] for q in tenant.questions(1)])
    a = tenant.start(t)
    return [
        ("/api/attempts", sa, {"test_id": t["id"]},  # the test with its totals: no tests.repository
         NOT_AT_IMPORT["exams.attempts.handler"]),
        ("/api/attempts", tenant.students[0], {"student_id": tenant.students[0].id},  # reads each test
         NOT_AT_IMPORT["exams.attempts.handler"] - {"exams.papers.repository"}),
        ("/api/proctoring/events", tenant.students[0], {"attempt_id": a["id"]},
         NOT_AT_IMPORT["exams.proctoring.handler"]),
        ("/api/profiles", sa, {}, NOT_AT_IMPORT["exams.users.handler"]),
        ("/api/clients", sa, {}, NOT_AT_IMPORT["exams.clients.handler"]),
        ("/api/superadmin/subscriptions", sa, {}, NOT_AT_IMPORT["exams.billing.handler"]),
        ("/api/superadmin/audit-logs", sa, {}, NOT_AT_IMPORT["exams.admin.handler"]),
        ("/api/settings", sa, {}, NOT_AT_IMPORT["exams.admin.handler"]),
    ]


def test_a_read_route_imports_only_what_it_uses(exams_app, exam_users, tenant):
    for path, user, query, forbidden in _requests(exams_app, exam_users, tenant):
        get(exams_app, path, user, **query)  # a first request (sign-in entry, key set)
        with imports_requested() as seen:
            r = get(exams_app, path, user, **query)
        assert r.status == 200, (path, r.text)
        assert any(m.startswith("exams.") for m in seen), "the recorder saw the request"
        assert not (forbidden & seen), (path, sorted(forbidden & seen))


def test_the_recorder_sees_a_route_that_does_import(exams_app, exam_users, tenant, monkeypatch):
    """The check above could fail: a write route imports its request model and use-case modules."""
    t = tenant.test([q["id"] for q in tenant.questions(1)])
    student = tenant.students[0]
    with imports_requested() as seen:
        r = exams_app.exams.post("/api/attempts", json={"test_id": t["id"], "student_id": student.id},
                                 headers=student.headers)
    assert r.status == 201, r.text
    assert {"exams.attempts.start", "exams.attempts.models"} <= seen
    assert "exams.audit.repository" in seen  # the start's audit row
    from lambdakit import ddb

    built: list[object] = []
    real = ddb.build_filter
    monkeypatch.setattr(ddb, "build_filter", lambda flt: built.append(flt) or real(flt))
    sa = exam_users.super_admin()
    for path, query in [("/api/profiles", {"role": "student"}),
                        ("/api/superadmin/audit-logs", {"action": "client.create", "entity_type": "client"})]:
        built.clear()
        with imports_requested() as seen:
            r = get(exams_app, path, sa, **query)
        assert r.status == 200, r.text
        assert built, path  # a filter expression, built by lambdakit.conditions ...
        assert not BOTO3 & seen, (path, sorted(BOTO3 & seen))  # ... without the boto3 package
