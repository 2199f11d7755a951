"""Fault injection on the real boto3 clients (issue 23): botocore event hooks, no fakes.

``inject(op, fault, at=n)`` makes the ``n``-th call (1-based) of the DynamoDB operation ``op``
(``"PutItem"``, ``"UpdateItem"``, ``"TransactWriteItems"``, ..., ``"write"`` for any write or ``"*"`` for any) fail with
``fault``:

* an AWS error code (``"ConditionalCheckFailedException"``, ``"ProvisionedThroughputExceededException"``,
  ``"InternalServerError"``, ``"ValidationException"``...): a ``before-call`` hook answers the
  call with that error as DynamoDB would, so the request never reaches moto (the throttle is
  the one left after botocore's retries);
* ``cancel:<Reason>`` (``cancel:ValidationError``, ``cancel:TransactionConflict``...): a
  ``TransactionCanceledException`` whose reason list has ``<Reason>`` at the operation
  ``reason_at`` (default 0) and ``None`` elsewhere;
* ``ambiguous``: the call IS applied by moto, then its answer is lost and botocore sends
  the same request again (a ``needs-retry`` hook asks for one retry of the first response):
  the case that breaks exactly-once designs.

The hooks are registered on every DynamoDB client the process has (``lambdakit.aws`` caches
one low-level client and one resource per region), and removed on exit.
"""
from __future__ import annotations

import contextlib
import itertools
from typing import Any, Iterator

_ids = itertools.count()

# ``op="write"``: any DynamoDB call that changes state (the positions the fault suite targets
# with cancellations and ambiguous writes); ``op="cond"``: a write that carries a condition
# (the only writes DynamoDB can answer with ConditionalCheckFailed).
WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"})


def _clients() -> list[Any]:
    from lambdakit import aws

    out = [aws.client("dynamodb"), aws.resource("dynamodb").meta.client]
    return list({id(c): c for c in out}.values())


class Fault:
    def __init__(self, op: str, fault: str, at: int, times: int, reason_at: int) -> None:
        self.op, self.fault, self.at, self.times, self.reason_at = op, fault, at, times, reason_at
        self.calls = 0
        self.fired = 0
        self._retry_pending = False
        self.where = ""  # the operation and product frame the fault hit (for reports)

    def _matches(self, name: str, params: dict | None = None) -> bool:
        if self.op == "write":
            return name in WRITES
        if self.op == "condtx":
            return name == "TransactWriteItems" and params is not None and bool(_conditional_items(name, params))
        if self.op == "cond":
            return name in WRITES and params is not None and bool(_conditional_items(name, params))
        return self.op == "*" or name == self.op

    def _due(self) -> bool:
        return self.at <= self.calls < self.at + self.times

    # before-call: count, and short-circuit with an error response when due
    def before_call(self, model: Any, params: dict, **_: Any) -> Any:
        if not self._matches(model.name, params):
            return None
        self.calls += 1
        if not self._due():
            return None
        self.where = f"{model.name} in {_caller()}"
        if self.fault == "ambiguous":
            self._retry_pending = True
            self.fired += 1
            return None
        self.fired += 1
        reason_at = self.reason_at
        if self.fault == "cancel:ConditionalCheckFailed" and _conditional_items(model.name, params):
            reason_at = _conditional_items(model.name, params)[0]  # DynamoDB names a conditioned item
        return _error_response(self.fault, model.name, params, reason_at)

    # needs-retry: after the first (applied) response of an ambiguous call, ask for a resend
    def needs_retry(self, response: Any = None, attempts: int = 0, operation: Any = None, **_: Any) -> Any:
        if not self._retry_pending or operation is None:
            return None
        if attempts == 1:
            self._retry_pending = False
            return 0  # retry now: the server applied the first send, its answer is "lost"
        return None


def _conditional_items(name: str, params: dict) -> list[int]:
    """Indexes of the operations of a write that carry a condition (0 for a single write):
    only those can fail with ConditionalCheckFailed."""
    if name == "TransactWriteItems":
        return [i for i, it in enumerate(params.get("TransactItems") or [])
                if "ConditionCheck" in it or any("ConditionExpression" in (op or {}) for op in it.values())]
    return [0] if params.get("ConditionExpression") or params.get("Expected") else []


def _caller() -> str:
    """The innermost product frame (functions/ or lambdakit) of the current call."""
    import traceback

    for fr in reversed(traceback.extract_stack()):
        if "/functions/" in fr.filename or ("lambdakit" in fr.filename and not fr.filename.endswith("ddb.py")):
            return f"{fr.filename.rsplit('/', 2)[-2]}/{fr.filename.rsplit('/', 1)[-1]}:{fr.name}"
    return "?"


def _error_response(fault: str, op_name: str, params: dict, reason_at: int) -> Any:
    from botocore.awsrequest import AWSResponse

    status = 400
    if fault.startswith("cancel:"):
        reason = fault.split(":", 1)[1]
        n = max(1, len(params.get("TransactItems") or []))
        reasons: list[dict] = [{"Code": "None"} for _ in range(n)]
        reasons[min(reason_at, n - 1)] = {"Code": reason, "Message": _reason_message(reason)}
        parsed = {"Error": {"Code": "TransactionCanceledException",
                            "Message": "Transaction cancelled, please refer cancellation reasons for specific reasons "
                                       f"[{', '.join(r['Code'] for r in reasons)}]"},
                  "CancellationReasons": reasons}
    else:
        if fault in ("InternalServerError", "ServiceUnavailable"):
            status = 500
        parsed = {"Error": {"Code": fault, "Message": _message(fault)}}
    parsed["ResponseMetadata"] = {"HTTPStatusCode": status, "HTTPHeaders": {}, "RetryAttempts": 0}
    return AWSResponse("http://dynamodb.fault", status, {}, None), parsed


def _reason_message(reason: str) -> str:
    return {"ValidationError": "Item size has exceeded the maximum allowed size",
            "ConditionalCheckFailed": "The conditional request failed",
            "TransactionConflict": "Transaction is ongoing for the item",
            "ThrottlingError": "Throughput exceeds the current capacity for one or more global secondary indexes"}.get(
        reason, reason)


def _message(code: str) -> str:
    return {"ValidationException": "Item size has exceeded the maximum allowed size",
            "ConditionalCheckFailedException": "The conditional request failed",
            "ProvisionedThroughputExceededException": "The level of configured provisioned throughput for the "
                                                      "table was exceeded.",
            "InternalServerError": "Internal server error"}.get(code, code)


@contextlib.contextmanager
def inject(op: str, fault: str, *, at: int = 1, times: int = 1, reason_at: int = 0) -> Iterator[Fault]:
    f = Fault(op, fault, at, times, reason_at)
    uid = f"fault-{next(_ids)}"
    regs = []
    for c in _clients():
        ev = c.meta.events
        ev.register("before-call.dynamodb", f.before_call, unique_id=uid + "-b")
        ev.register("needs-retry.dynamodb", f.needs_retry, unique_id=uid + "-r")
        regs.append(ev)
    try:
        yield f
    finally:
        for ev in regs:
            ev.unregister("before-call.dynamodb", unique_id=uid + "-b")
            ev.unregister("needs-retry.dynamodb", unique_id=uid + "-r")


@contextlib.contextmanager
def count_calls(op: str = "*") -> Iterator[Fault]:
    """Count calls of ``op`` without failing any (to pick first/middle/last call indexes)."""
    with inject(op, "none", at=10**9) as f:
        yield f
