"""Count AWS calls per operation (and DynamoDB items read) with a botocore event hook.

    from bench.callcount import count_calls      # import before clients are created
    with count_calls() as cc:
        app.campaigns.get("/contacts")
    cc.calls            # Counter({"dynamodb.Query": 1, "dynamodb.GetItem": 2})
    cc.total("dynamodb"), cc.items_read, cc.summary()

The hook is installed like moto's own: in botocore's builtin handlers, so every client
created afterwards reports to the active counter. Clients that already existed can be
added with ``attach(client)`` (``attach_cached()`` does it for lambdakit's cache).
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


def _after_call(http_response: Any = None, parsed: Any = None, model: Any = None, **_: Any) -> None:
    if not _active or model is None:
        return
    # A client created after this import has the builtin hook, and ``attach`` may have added
    # it again: the same call then reports twice with the same parsed response. Count it once.
    key = (id(parsed), id(http_response))
    if getattr(_last, "key", None) == key and getattr(_last, "parsed", None) is parsed:
        return
    _last.key, _last.parsed = key, parsed
    service = model.service_model.service_name if hasattr(model, "service_model") else "?"
    for c in list(_active):
        c.record(service, model.name, parsed if isinstance(parsed, dict) else {})


_HOOK = ("after-call", _after_call)
if _HOOK not in botocore.handlers.BUILTIN_HANDLERS:
    botocore.handlers.BUILTIN_HANDLERS.append(_HOOK)


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
    for r in list(aws._resources.values()):
        attach(r.meta.client)


@contextmanager
def count_calls() -> Iterator[CallCounter]:
    c = CallCounter()
    attach_cached()
    _active.append(c)
    try:
        yield c
    finally:
        _active.remove(c)
