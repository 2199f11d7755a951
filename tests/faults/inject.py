"""Fault injection on the real boto3 clients (issue 23): botocore event hooks, no fakes.

``inject(op, fault, at=n)`` makes the ``n``-th call (1-based) of the DynamoDB operations ``op``
selects fail with ``fault``. ``op`` is an operation name (``"PutItem"``, ``"TransactWriteItems"``
...), ``"*"`` (any call), ``"write"`` (any call that changes state), ``"cond"`` (a single write,
``PutItem``/``UpdateItem``/``DeleteItem``, that carries a condition: the only calls DynamoDB can
answer with ``ConditionalCheckFailedException``) or ``"condtx"`` (a transaction with at least
one conditioned operation: the only ones it can cancel with ``ConditionalCheckFailed``).
``item=lambda table, pk, sk: ...`` narrows the selection further to the calls that write an
item the predicate accepts (and names that item as the one at fault).

``before-call`` handlers receive the SERIALISED request (url, headers, JSON body bytes), not
the API parameters: the hooks read the operation's parameters from the JSON body (DynamoDB
speaks the JSON protocol; for the resource API the body is already in DynamoDB's wire format).

Faults:

* an AWS error code (``"ConditionalCheckFailedException"``, ``"ProvisionedThroughputExceededException"``,
  ``"InternalServerError"``, ``"ValidationException"``...): the ``before-call`` hook answers the
  call with that error as DynamoDB would, so the request never reaches moto (the throttle is
  the one left after botocore's retries). A ``ConditionalCheckFailedException`` carries the
  item as it stands (``Item``) when the call asked for it with
  ``ReturnValuesOnConditionCheckFailure=ALL_OLD``, as DynamoDB does;
* ``cancel:<Reason>`` (``cancel:ConditionalCheckFailed``, ``cancel:ValidationError``,
  ``cancel:TransactionConflict``, ``cancel:ThrottlingError``): a ``TransactionCanceledException``
  with one cancellation reason per operation of the transaction: ``<Reason>`` on the operation
  at fault and ``None`` on the others. The operation at fault is the one ``item`` names, else
  (for ``ConditionalCheckFailed``) the first conditioned one, else ``reason_at``;
* ``refused``: DynamoDB refusing a value (an item over 400 KB): ``ValidationException`` on a
  single write, a ``ValidationError`` cancellation reason on a transaction;
* ``ambiguous``: the call IS applied by moto, then its answer is lost and botocore sends
  the same request again (a ``needs-retry`` hook asks for one retry of the first response):
  the case that breaks exactly-once designs.

The hooks are registered on every DynamoDB client the process has (``lambdakit.aws`` caches
one low-level client and one resource per region), and removed on exit. ``Fault.fired`` counts
the calls the fault was injected into; ``Fault.reasons`` is the last cancellation reason list.
"""
from __future__ import annotations

import contextlib
import itertools
import json
from typing import Any, Callable, Iterator

_ids = itertools.count()

WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"})
SINGLE_WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem"})
_TX_KINDS = ("Put", "Update", "Delete", "ConditionCheck")

#: ``item`` predicate: (table name, pk, sk) → is this the item at fault?
ItemPredicate = Callable[[str, str, str], bool]


def _clients() -> list[Any]:
    from lambdakit import aws

    return [aws.client("dynamodb")]


def request_params(params: dict) -> dict:
    """The API parameters of a serialised DynamoDB request (what ``before-call`` receives)."""
    body = params.get("body") if isinstance(params, dict) else None
    if not body:
        return {}
    try:
        data = json.loads(body)
    except (TypeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _key_str(attrs: dict | None, name: str) -> str:
    v = (attrs or {}).get(name)
    if isinstance(v, dict) and v:
        return str(next(iter(v.values())))
    return ""


def write_items(name: str, req: dict) -> list[tuple[str, str, str, bool]]:
    """The items a write touches, in order: ``(table, pk, sk, conditioned)``; one per operation
    of a transaction, one per request of a batch, one for a single write."""
    out: list[tuple[str, str, str, bool]] = []
    if name == "TransactWriteItems":
        for it in req.get("TransactItems") or []:
            kind = next((k for k in _TX_KINDS if k in it), None)
            op = it.get(kind) or {}
            attrs = op.get("Key") or op.get("Item")
            out.append((op.get("TableName", ""), _key_str(attrs, "pk"), _key_str(attrs, "sk"),
                        kind == "ConditionCheck" or bool(op.get("ConditionExpression"))))
    elif name == "BatchWriteItem":
        for table, reqs in (req.get("RequestItems") or {}).items():
            for r in reqs:
                attrs = (r.get("PutRequest") or {}).get("Item") or (r.get("DeleteRequest") or {}).get("Key")
                out.append((table, _key_str(attrs, "pk"), _key_str(attrs, "sk"), False))
    elif name in SINGLE_WRITES:
        attrs = req.get("Key") or req.get("Item")
        out.append((req.get("TableName", ""), _key_str(attrs, "pk"), _key_str(attrs, "sk"),
                    bool(req.get("ConditionExpression") or req.get("Expected"))))
    return out


def conditional_items(name: str, req: dict) -> list[int]:
    """Indexes of the operations of a write that carry a condition (0 for a single write):
    only those can fail with ConditionalCheckFailed."""
    return [i for i, it in enumerate(write_items(name, req)) if it[3]]


class Fault:
    def __init__(self, op: str, fault: str, at: int, times: int, reason_at: int,
                 item: ItemPredicate | None = None) -> None:
        self.op, self.fault, self.at, self.times, self.reason_at, self.item = op, fault, at, times, reason_at, item
        self.calls = 0
        self.fired = 0
        self.reasons: list[str] | None = None  # the last cancellation reason list sent
        self._retry_pending = False
        self.where = ""  # the operation and product frame the fault hit (for reports)

    def _selected(self, name: str, req: dict) -> tuple[bool, int | None]:
        """(does this call count for the fault, index of the item at fault if ``item`` names one)."""
        if self.op == "write":
            ok = name in WRITES
        elif self.op == "cond":
            ok = name in SINGLE_WRITES and bool(conditional_items(name, req))
        elif self.op == "condtx":
            ok = name == "TransactWriteItems" and bool(conditional_items(name, req))
        else:
            ok = self.op == "*" or name == self.op
        if not ok or self.item is None:
            return ok, None
        hit = [i for i, (t, pk, sk, _) in enumerate(write_items(name, req)) if self.item(t, pk, sk)]
        return bool(hit), (hit[0] if hit else None)

    def _due(self) -> bool:
        return self.at <= self.calls < self.at + self.times

    # before-call: count, and short-circuit with an error response when due
    def before_call(self, model: Any, params: dict, **_: Any) -> Any:
        name = model.name
        if not (self.op == "*" or name == self.op or (self.op in ("write", "cond", "condtx") and name in WRITES)):
            return None
        req = request_params(params) if name in WRITES else {}
        ok, at_item = self._selected(name, req)
        if not ok:
            return None
        self.calls += 1
        if not self._due() or self.fault == "none":
            return None
        self.where = f"{name} in {_caller()}"
        self.fired += 1
        if self.fault == "ambiguous":
            self._retry_pending = True
            return None
        fault = self.fault
        if fault == "refused":
            fault = "cancel:ValidationError" if name == "TransactWriteItems" else "ValidationException"
        if fault.startswith("cancel:"):
            n = max(1, len(req.get("TransactItems") or []))
            if at_item is not None:
                idx = at_item
            elif fault == "cancel:ConditionalCheckFailed" and conditional_items(name, req):
                idx = conditional_items(name, req)[0]  # DynamoDB names a conditioned operation
            else:
                idx = min(self.reason_at, n - 1)
            reasons = ["None"] * n
            reasons[idx] = fault.split(":", 1)[1]
            self.reasons = reasons
            return _cancel_response(reasons)
        old = _current_item(req) if (fault == "ConditionalCheckFailedException"
                                     and req.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD") else None
        return _error_response(fault, old)

    # needs-retry: after the first (applied) response of an ambiguous call, ask for a resend
    def needs_retry(self, response: Any = None, attempts: int = 0, operation: Any = None, **_: Any) -> Any:
        if not self._retry_pending or operation is None:
            return None
        if attempts == 1:
            self._retry_pending = False
            return 0  # retry now: the server applied the first send, its answer is "lost"
        return None


_plain_client: Any = None


def _current_item(req: dict) -> dict | None:
    """The item a single write targets, as it stands (wire format), read with a client that
    carries no fault hooks: what DynamoDB returns with ``ReturnValuesOnConditionCheckFailure``."""
    global _plain_client
    key = req.get("Key")
    if not key and req.get("Item"):
        key = {k: req["Item"][k] for k in ("pk", "sk") if k in req["Item"]}
    if not key or not req.get("TableName"):
        return None
    if _plain_client is None:
        import boto3

        from lambdakit import aws

        _plain_client = boto3.session.Session().client("dynamodb", region_name=aws.client("dynamodb").meta.region_name)
    return _plain_client.get_item(TableName=req["TableName"], Key=key, ConsistentRead=True).get("Item")


def _caller() -> str:
    """The innermost product frame (functions/ or lambdakit) of the current call."""
    import traceback

    for fr in reversed(traceback.extract_stack()):
        if "/functions/" in fr.filename or ("lambdakit" in fr.filename and not fr.filename.endswith("ddb.py")):
            return f"{fr.filename.rsplit('/', 2)[-2]}/{fr.filename.rsplit('/', 1)[-1]}:{fr.name}"
    return "?"


def _response(status: int, parsed: dict) -> Any:
    from botocore.awsrequest import AWSResponse

    parsed["ResponseMetadata"] = {"HTTPStatusCode": status, "HTTPHeaders": {}, "RetryAttempts": 0}
    return AWSResponse("http://dynamodb.fault", status, {}, None), parsed


def _cancel_response(reasons: list[str]) -> Any:
    return _response(400, {
        "Error": {"Code": "TransactionCanceledException",
                  "Message": "Transaction cancelled, please refer cancellation reasons for specific reasons "
                             f"[{', '.join(reasons)}]"},
        "CancellationReasons": [{"Code": r} if r == "None" else {"Code": r, "Message": _REASON_MESSAGES.get(r, r)}
                                for r in reasons]})


def _error_response(code: str, item: dict | None = None) -> Any:
    parsed: dict[str, Any] = {"Error": {"Code": code, "Message": _MESSAGES.get(code, code)}}
    if item:
        parsed["Item"] = item
    return _response(500 if code in ("InternalServerError", "ServiceUnavailable") else 400, parsed)


_REASON_MESSAGES = {
    "ValidationError": "Item size has exceeded the maximum allowed size",
    "ConditionalCheckFailed": "The conditional request failed",
    "TransactionConflict": "Transaction is ongoing for the item",
    "ThrottlingError": "Throughput exceeds the current capacity for one or more global secondary indexes"}
_MESSAGES = {
    "ValidationException": "Item size has exceeded the maximum allowed size",
    "ConditionalCheckFailedException": "The conditional request failed",
    "ProvisionedThroughputExceededException": "The level of configured provisioned throughput for the "
                                              "table was exceeded.",
    "InternalServerError": "Internal server error"}


@contextlib.contextmanager
def inject(op: str, fault: str, *, at: int = 1, times: int = 1, reason_at: int = 0,
           item: ItemPredicate | None = None) -> Iterator[Fault]:
    f = Fault(op, fault, at, times, reason_at, item)
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
def count_calls(op: str = "*", item: ItemPredicate | None = None) -> Iterator[Fault]:
    """Count calls of ``op`` without failing any (to pick first/middle/last call indexes)."""
    with inject(op, "none", at=10**9, item=item) as f:
        yield f
