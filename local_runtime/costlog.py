"""Per-invocation cost log of the local runtime: AWS calls and DynamoDB items read per request.

Off by default. With ``LOCAL_COST_LOG=<path>`` the runtime counts, with the botocore hook of
``local_runtime.callcount``, the calls each invocation makes on its own thread and appends
one JSON line per invocation to ``<path>``:

    {"kind": "http", "service": "campaigns", "route": "GET /contacts/{id}", "status": 200,
     "calls": {"dynamodb.GetItem": 2}, "total": 2, "ddb": 2, "items_read": 2, "items_scanned": 0,
     "ms": 12.3}

``kind`` is ``http`` for a front request (``route`` is the template's route key, an alias
twin's authoritative one (``GET /api/v1/health`` is logged as ``GET /health``), or
``<unmatched>`` for a 404 no route matched; the front's local ``/openapi.json`` and ``/docs``
are not logged), ``queue`` for a batch an SQS poller delivered, ``schedule`` for a schedule
tick and ``invoke`` for anything else (``make invoke``); for those three ``route`` is the
function's logical id and ``status`` is ``ok`` or ``error``. Calls made by the runtime itself
(pollers receiving messages, provisioning, seeding) are not counted.

When the variable is unset nothing is installed: no botocore hook, no per-request work.
"""
from __future__ import annotations

import json
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

ENV = "LOCAL_COST_LOG"


class CostLog:
    def __init__(self, path: str | Path) -> None:
        from . import callcount

        callcount.install()  # before the handlers create their clients
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._depth = threading.local()

    @contextmanager
    def record(self, kind: str, service: str, route: str) -> Iterator[dict[str, Any]]:
        """Count the calls of this thread inside the block; ``entry["status"]`` may be set by the caller.

        Nested blocks on one thread (a front request whose function is then invoked) count once,
        in the outermost block."""
        from .callcount import count_thread

        if getattr(self._depth, "n", 0):
            yield {}
            return
        entry: dict[str, Any] = {"kind": kind, "service": service, "route": route, "status": None}
        self._depth.n = 1
        started = time.monotonic()
        try:
            with count_thread() as cc:
                yield entry
        finally:
            self._depth.n = 0
            s = cc.summary()
            entry.update(calls=s["calls"], total=s["total"], ddb=cc.total("dynamodb"), items_read=s["items_read"],
                         items_scanned=s["items_scanned"], ms=round((time.monotonic() - started) * 1000, 1))
            self.write(entry)

    def write(self, entry: dict[str, Any]) -> None:
        line = json.dumps(entry, default=str) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(line)


_LOG: CostLog | None = None
_CHECKED = False
_INIT = threading.Lock()


def from_env() -> CostLog | None:
    """The process's cost log if ``LOCAL_COST_LOG`` is set (created once), else None."""
    global _LOG, _CHECKED
    if _CHECKED:
        return _LOG
    with _INIT:
        if not _CHECKED:
            path = os.environ.get(ENV)
            _LOG = CostLog(path) if path else None
            _CHECKED = True
    return _LOG


def reset() -> None:
    """Read ``LOCAL_COST_LOG`` again on the next ``from_env()`` (tests)."""
    global _LOG, _CHECKED
    with _INIT:
        _LOG, _CHECKED = None, False


def invocation_kind(event: Any) -> str:
    """``queue`` (an SQS batch), ``schedule`` (an EventBridge scheduled event) or ``invoke``."""
    if isinstance(event, dict):
        records = event.get("Records")
        if isinstance(records, list) and records and isinstance(records[0], dict) \
                and records[0].get("eventSource") == "aws:sqs":
            return "queue"
        if event.get("detail-type") == "Scheduled Event" or event.get("source") == "aws.events" \
                or event.get("source") == "aws.scheduler":
            return "schedule"
    return "invoke"
