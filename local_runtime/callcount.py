"""Count AWS calls per operation (and DynamoDB items read) with a botocore event hook.

    from local_runtime.callcount import count_calls   # import before clients are created
    with count_calls() as cc:                         # every thread (process-wide)
        app.campaigns.get("/contacts")
    cc.calls            # Counter({"dynamodb.Query": 1, "dynamodb.GetItem": 2})
    cc.total("dynamodb"), cc.items_read, cc.summary()

    with count_thread() as cc:                        # only calls made by this thread
        ...

``count_thread`` is what the local runtime's cost log uses (``local_runtime.costlog``): each
request is handled, and its function invoked, on one front thread, so the calls of
concurrent requests never mix. (A handler that fanned calls out to its own threads would
have those calls missed; no handler does.)

The hook is installed like moto's own: in botocore's builtin handlers, so every client
created afterwards reports to the active counter (``install()``; importing this module
installs it). Clients that already existed can be added with ``attach(client)``
(``attach_cached()`` does it for lambdakit's cache). ``bench/callcount.py`` re-exports this.
"""
from __future__ import annotations

import threading
from collections import Counter
from contextlib import contextmanager
from typing import Any, Iterator

import botocore.handlers

_active: list[CallCounter] = []
_lock = threading.Lock()


class CallCounter:
    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.items_read = 0  # DynamoDB items returned (GetItem, Query, Scan, BatchGet, TransactGet)
        self.items_scanned = 0  # DynamoDB ScannedCount (Query/Scan)
        self.messages_received = 0  # SQS

    def record(self, service: str, op: str, parsed: dict) -> None:
        with _lock:
            self.calls[f"{service}.{op}"] += 1
            if service == "dynamodb":
                if op == "GetItem":
                    self.items_read += 1 if parsed.get("Item") else 0
                elif op in ("Query", "Scan"):
                    self.items_read += int(parsed.get("Count", 0))
                    self.items_scanned += int(parsed.get("ScannedCount", 0))
                elif op == "BatchGetItem":
                    self.items_read += sum(len(v) for v in (parsed.get("Responses") or {}).values())
                elif op == "TransactGetItems":
                    self.items_read += sum(1 for r in parsed.get("Responses") or [] if r.get("Item"))
            elif service == "sqs" and op == "ReceiveMessage":
                self.messages_received += len(parsed.get("Messages") or [])

    def total(self, service: str | None = None) -> int:
        return sum(n for k, n in self.calls.items() if service is None or k.startswith(service + "."))

    def summary(self) -> dict[str, Any]:
        return {"calls": dict(sorted(self.calls.items())), "total": self.total(), "items_read": self.items_read,
                "items_scanned": self.items_scanned, "messages_received": self.messages_received}


_last = threading.local()
_thread = threading.local()  # .counter: the CallCounter of count_thread() on this thread


def _after_call(http_response: Any = None, parsed: Any = None, model: Any = None, **_: Any) -> None:
    mine = getattr(_thread, "counter", None)
    if (not _active and mine is None) or model is None:
        return
    # A client created after this import has the builtin hook, and ``attach`` may have added
    # it again: the same call then reports twice with the same parsed response. Count it once.
    key = (id(parsed), id(http_response))
    if getattr(_last, "key", None) == key and getattr(_last, "parsed", None) is parsed:
        return
    _last.key, _last.parsed = key, parsed
    service = model.service_model.service_name if hasattr(model, "service_model") else "?"
    body = parsed if isinstance(parsed, dict) else {}
    for c in list(_active):
        c.record(service, model.name, body)
    if mine is not None:
        mine.record(service, model.name, body)


_HOOK = ("after-call", _after_call)


def install() -> None:
    """Put the hook in botocore's builtin handlers: every client created from now on reports."""
    if _HOOK not in botocore.handlers.BUILTIN_HANDLERS:
        botocore.handlers.BUILTIN_HANDLERS.append(_HOOK)


install()


def attach(client: Any) -> None:
    """Report calls of a client created before this module was imported."""
    client.meta.events.register("after-call", _after_call, unique_id="bench-callcount")


def attach_cached() -> None:
    try:
        from lambdakit import aws
    except ImportError:
        return
    for c in list(aws._clients.values()):
        attach(c)


@contextmanager
def count_calls() -> Iterator[CallCounter]:
    c = CallCounter()
    attach_cached()
    _active.append(c)
    try:
        yield c
    finally:
        _active.remove(c)


@contextmanager
def count_thread() -> Iterator[CallCounter]:
    """Count the calls made by the current thread only (nested: the innermost counts)."""
    c = CallCounter()
    attach_cached()
    outer = getattr(_thread, "counter", None)
    _thread.counter = c
    try:
        yield c
    finally:
        _thread.counter = outer
