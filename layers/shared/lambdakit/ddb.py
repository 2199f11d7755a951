"""DynamoDB data-access helpers (single-table design).

Every service table has ``pk``/``sk`` plus generic indexes ``gsi1``..``gsi3``
(``gsi1pk``/``gsi1sk`` ...) and a ``ttl`` attribute. Repositories build keys;
this module does the mechanics: conditional writes that raise
``ConditionFailed``, atomic counters, transactions, batch writes, and
cursor-paginated queries. No Scan is offered: request paths never scan.
"""
from __future__ import annotations

import base64
import json
import logging
import random
import time
from typing import Any, Iterable, Iterator, NamedTuple

from . import aws, conditions
from .conditions import Condition
from .ddbcalls import (  # noqa: F401 - conversion and call mechanics live in ddbcalls; re-exported
    MAX_TRANSACT_BYTES,
    call,
    check_size,
    deser_item,
    from_ddb,
    ser_item,
    storage_refused,
    to_ddb,
)
from .errors import ConditionFailed, Contention, StorageRefused, Throttled

logger = logging.getLogger("lambdakit.ddb")

#: Cancellation reasons that say nothing about the data, only that the items were busy:
#: a transaction cancelled for these alone is retried (``Table.transact``).
TRANSIENT_REASONS = frozenset({"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"})
#: ``Table.transact`` retry policy: attempts, first backoff ceiling, total budget (seconds).
TRANSACT_ATTEMPTS = 5
TRANSACT_BASE_DELAY = 0.025
TRANSACT_BUDGET = 1.0
#: DynamoDB's TransactWriteItems limit (items per transaction).
MAX_TRANSACT_ITEMS = 100
#: Batch calls: resends of unprocessed items/keys, and the first backoff ceiling (seconds).
BATCH_ATTEMPTS = 8
BATCH_BASE_DELAY = 0.05


# ---------------------------------------------------------------- internal start keys
# Pagination cursors a client sees are made by ``lambdakit.cursors`` (signed, bound). These two
# only serialise a start key the service keeps for itself (never sent to a client).
def pack_key(last_key: dict | None) -> str | None:
    if not last_key:
        return None
    raw = json.dumps(from_ddb(last_key), separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unpack_key(packed: str | None) -> dict | None:
    """The start key ``pack_key`` made; ``ValueError`` on garbage."""
    if not packed:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4)))
    except Exception as exc:  # noqa: BLE001 - any decoding problem
        raise ValueError("invalid start key") from exc
    if not isinstance(data, dict):
        raise ValueError("invalid start key")
    return to_ddb(data)


def _check_start_key(cursor: dict, pk_attr: str, sk_attr: str, pk_value: str) -> None:
    """A start key must be one of this query: the table's and the index's key attributes, and the
    partition queried (else DynamoDB refuses it with a ValidationException: a 500). Even a
    cursor that verified (``lambdakit.cursors``) is checked: 400 ``INVALID_CURSOR``."""
    need = {"pk", "sk", pk_attr, sk_attr}
    if not need <= set(cursor) or cursor.get(pk_attr) != pk_value or not all(
            isinstance(cursor[k], (str, int)) and not isinstance(cursor[k], bool) for k in need):
        from .cursors import InvalidCursor

        raise InvalidCursor("Cursor does not belong to this list")


# ---------------------------------------------------------------- expressions
class _Expr:
    """Placeholders of one expression (``#n0``/``:v1``; a ``prefix`` keeps two builders apart)."""

    def __init__(self, prefix: str = "") -> None:
        self.names: dict[str, str] = {}
        self.values: dict[str, Any] = {}
        self._n = 0
        self._p = prefix

    def name(self, attr: str) -> str:
        parts = []
        for part in attr.split("."):
            key = f"#{self._p}n{len(self.names)}"
            self.names[key] = part
            parts.append(key)
        return ".".join(parts)

    def value(self, v: Any) -> str:
        self._n += 1
        key = f":{self._p}v{self._n}"
        self.values[key] = to_ddb(v)
        return key


def build_update(
    *,
    set: dict[str, Any] | None = None,
    set_if_absent: dict[str, Any] | None = None,
    add: dict[str, int | float] | None = None,
    remove: Iterable[str] | None = None,
    append: dict[str, list] | None = None,
    expr: _Expr | None = None,
) -> tuple[str, _Expr]:
    e = expr or _Expr()
    sets: list[str] = []
    for k, v in (set or {}).items():
        sets.append(f"{e.name(k)} = {e.value(v)}")
    for k, v in (set_if_absent or {}).items():
        n = e.name(k)
        sets.append(f"{n} = if_not_exists({n}, {e.value(v)})")
    for k, v in (append or {}).items():
        n = e.name(k)
        sets.append(f"{n} = list_append(if_not_exists({n}, {e.value([])}), {e.value(v)})")
    clauses = []
    if sets:
        clauses.append("SET " + ", ".join(sets))
    if add:
        clauses.append("ADD " + ", ".join(f"{e.name(k)} {e.value(v)}" for k, v in add.items()))
    rem = list(remove or [])
    if rem:
        clauses.append("REMOVE " + ", ".join(e.name(k) for k in rem))
    return " ".join(clauses), e


def build_filter(filter: Condition) -> tuple[str, dict[str, str], dict[str, Any]]:
    """``(expression, names, values)`` of a ``lambdakit.conditions`` condition, its placeholders
    (``#fn0``, ``:fv1``) apart from those of the key condition and projection (``#kn0``, ``:kv1``)
    it joins. A fresh ``_Expr`` per call: nothing shared between threads."""
    e = _Expr(prefix="f")
    return conditions.build(filter, e), e.names, e.values


def _filter(filter: Condition | None, kw: dict[str, Any]) -> None:
    """Add a ``lambdakit.conditions`` filter to a query's parameters."""
    if filter is None:
        return
    expression, names, values = build_filter(filter)
    kw["FilterExpression"] = expression
    kw.setdefault("ExpressionAttributeNames", {}).update(names)
    kw.setdefault("ExpressionAttributeValues", {}).update(values)


def _ser_all(items: list[dict]) -> list[dict]:
    return [ser_item(i) for i in items]


def _wire_requests(requests: list[dict]) -> list[dict]:
    """Batch write requests (``{"PutRequest": {"Item": ...}}``) in the wire format."""
    return [{kind: {k: ser_item(v) for k, v in body.items()}} for r in requests for kind, body in r.items()]


class Page(NamedTuple):
    """One page of a query: its items, the key to resume after, and DynamoDB's counts."""

    items: list[dict]
    last_key: dict | None
    matched: int  # DynamoDB's Count (after the filter)
    scanned: int  # its ScannedCount (before the filter)


#: Request parameters carrying items, keys or values, which travel in DynamoDB's wire format.
_WIRE = ("Item", "Key", "ExclusiveStartKey", "ExpressionAttributeValues")


class Table:
    """One DynamoDB table through the low-level client (one client per process, shared with
    transactions and batches), with domain-friendly errors. Items are plain Python in and out."""

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def client(self):
        return aws.client("dynamodb")

    def _send(self, op: str, **kw: Any) -> dict:
        """One call of the client: parameters serialised inside ``call`` (so a value DynamoDB
        cannot store is a ``StorageRefused``), the answer's items and keys deserialised."""
        method = getattr(self.client, op)

        def send(**params: Any) -> dict:
            for k in _WIRE:
                if params.get(k):
                    params[k] = ser_item(params[k])
            return method(TableName=self.name, **params)

        send.__name__ = op
        resp = call(send, **kw)
        for k in ("Item", "Attributes", "LastEvaluatedKey"):
            if resp.get(k):
                resp[k] = deser_item(resp[k])
        if "Items" in resp:
            resp["Items"] = [deser_item(i) for i in resp["Items"]]
        return resp

    # ---- single items
    def get(self, pk: str, sk: str, *, consistent: bool = False, attributes: list[str] | None = None) -> dict | None:
        kw: dict[str, Any] = {"Key": {"pk": pk, "sk": sk}, "ConsistentRead": consistent}
        if attributes:
            e = _Expr()
            kw["ProjectionExpression"] = ", ".join(e.name(a) for a in attributes)
            kw["ExpressionAttributeNames"] = e.names
        item = self._send("get_item", **kw).get("Item")
        return from_ddb(item) if item else None

    def put(self, item: dict, *, condition: Any = None, names: dict | None = None, values: dict | None = None) -> None:
        check_size(item)
        kw: dict[str, Any] = {"Item": item}
        if condition is not None:
            kw["ConditionExpression"] = condition
            if names:
                kw["ExpressionAttributeNames"] = names
            if values:
                kw["ExpressionAttributeValues"] = values
        self._send("put_item", **kw)

    def put_new(self, item: dict, *, fresh_key: bool = False) -> None:
        """Insert; ``ConditionFailed`` if an item with this key exists.

        ``fresh_key=True`` (the key holds an id minted for this write, so no one else can
        write it): rule 2 of issue 23, confirm the cause. When the item found is exactly the
        one being written, it is this very write, applied by an earlier send whose answer was
        lost (botocore resends on a timeout): a success, not a conflict. Not for markers whose
        key is derived from the request (two identical requests must still conflict)."""
        try:
            self.put(item, condition="attribute_not_exists(pk)")
        except ConditionFailed:
            if not fresh_key:
                raise
            if self.get(item["pk"], item["sk"], consistent=True) != from_ddb(to_ddb(item)):
                raise fresh_key_taken() from None

    def update(
        self,
        pk: str,
        sk: str,
        *,
        set: dict[str, Any] | None = None,
        set_if_absent: dict[str, Any] | None = None,
        add: dict[str, int | float] | None = None,
        remove: Iterable[str] | None = None,
        append: dict[str, list] | None = None,
        condition: str | None = None,
        names: dict[str, str] | None = None,
        values: dict[str, Any] | None = None,
        must_exist: bool = False,
        return_values: str = "ALL_NEW",
    ) -> dict:
        """Update with optional condition. ``condition`` may use ``#x``/``:x`` placeholders
        supplied in ``names``/``values``. Returns the item as ``return_values`` says."""
        check_size({**(set or {}), **(set_if_absent or {}), **(append or {}), **(values or {})}, what="change")
        expr, e = build_update(set=set, set_if_absent=set_if_absent, add=add, remove=remove, append=append)
        conds = []
        if must_exist:
            conds.append("attribute_exists(pk)")
        if condition:
            conds.append(f"({condition})")
        kw: dict[str, Any] = {"Key": {"pk": pk, "sk": sk}, "UpdateExpression": expr, "ReturnValues": return_values}
        all_names = {**e.names, **(names or {})}
        all_values = {**e.values, **(values or {})}
        if conds:
            kw["ConditionExpression"] = " AND ".join(conds)
            kw["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        if all_names:
            kw["ExpressionAttributeNames"] = all_names
        if all_values:
            kw["ExpressionAttributeValues"] = all_values
        resp = self._send("update_item", **kw)
        return from_ddb(resp.get("Attributes") or {})

    def increment(self, pk: str, sk: str, counters: dict[str, int | float], *, set: dict[str, Any] | None = None) -> dict:
        """Atomic ADD of counters (creates the item when missing)."""
        return self.update(pk, sk, add=counters, set=set)

    def delete(self, pk: str, sk: str, *, condition: str | None = None, names: dict | None = None,
               values: dict | None = None, return_old: bool = False) -> dict | None:
        kw: dict[str, Any] = {"Key": {"pk": pk, "sk": sk}}
        if condition:
            kw["ConditionExpression"] = condition
            if names:
                kw["ExpressionAttributeNames"] = names
            if values:
                kw["ExpressionAttributeValues"] = values
        if return_old:
            kw["ReturnValues"] = "ALL_OLD"
        old = self._send("delete_item", **kw).get("Attributes")
        return from_ddb(old) if old else None

    # ---- queries
    def query_page(
        self,
        pk_value: str,
        *,
        index: str | None = None,
        sk_prefix: str | None = None,
        sk_between: tuple[str, str] | None = None,
        sk_gte: str | None = None,
        sk_lte: str | None = None,
        filter: Condition | None = None,
        limit: int | None = None,
        cursor: dict | None = None,
        forward: bool = True,
        consistent: bool = False,
        select_count: bool = False,
        columns: list[str] | None = None,
    ) -> Page:
        """One page of a key query with DynamoDB's ``Count``/``ScannedCount``. ``filter`` is a
        ``lambdakit.conditions`` condition (``Attr("status").eq("active")``), applied by DynamoDB
        after the read; ``columns`` projects the attributes returned."""
        e = _Expr(prefix="k")
        pk_attr, sk_attr = ("pk", "sk") if index is None else (f"{index}pk", f"{index}sk")
        cond = f"{e.name(pk_attr)} = {e.value(pk_value)}"
        if sk_prefix is not None:
            cond += f" AND begins_with({e.name(sk_attr)}, {e.value(sk_prefix)})"
        elif sk_between is not None:
            cond += f" AND {e.name(sk_attr)} BETWEEN {e.value(sk_between[0])} AND {e.value(sk_between[1])}"
        elif sk_gte is not None:
            cond += f" AND {e.name(sk_attr)} >= {e.value(sk_gte)}"
        elif sk_lte is not None:
            cond += f" AND {e.name(sk_attr)} <= {e.value(sk_lte)}"
        if columns:
            projection = ", ".join(e.name(c) for c in columns)
        kw: dict[str, Any] = {"KeyConditionExpression": cond, "ScanIndexForward": forward,
                              "ExpressionAttributeNames": e.names, "ExpressionAttributeValues": e.values}
        if columns:
            kw["ProjectionExpression"] = projection
        if index:
            kw["IndexName"] = index
        elif consistent:
            kw["ConsistentRead"] = True
        _filter(filter, kw)
        if limit:
            kw["Limit"] = limit
        if cursor:
            _check_start_key(cursor, pk_attr, sk_attr, pk_value)
            kw["ExclusiveStartKey"] = {k: v for k, v in cursor.items() if k in {"pk", "sk", pk_attr, sk_attr}}
        if select_count:
            kw["Select"] = "COUNT"
        resp = self._send("query", **kw)
        return Page([from_ddb(i) for i in resp.get("Items", [])], resp.get("LastEvaluatedKey") or None,
                    int(resp.get("Count", 0)), int(resp.get("ScannedCount", 0)))

    def query(self, pk_value: str, **kw: Any) -> tuple[list[dict], dict | None]:
        """One page of a key query (arguments as ``query_page``). Returns ``(items, last_key)``."""
        page = self.query_page(pk_value, **kw)
        return page.items, page.last_key

    def query_all(self, pk_value: str, *, max_items: int = 10_000, **kw: Any) -> list[dict]:
        """All items of a partition (bounded by ``max_items``): for small, bounded collections."""
        out: list[dict] = []
        cursor = None
        while True:
            items, cursor = self.query(pk_value, cursor=cursor, **kw)
            out.extend(items)
            if not cursor or len(out) >= max_items:
                return out[:max_items]

    def iter_query(self, pk_value: str, **kw: Any) -> Iterator[dict]:
        """Every item of a key query, page by page (workers and exports, never request paths)."""
        cursor = None
        while True:
            items, cursor = self.query(pk_value, cursor=cursor, **kw)
            yield from items
            if not cursor:
                return

    # ---- batches
    def _batch(self, op: str, first: dict, unprocessed: str) -> Iterator[dict]:
        """One batch call and the resends of what it left unprocessed (jittered backoff), yielding
        each answer; ``Throttled`` when items stay unprocessed after ``BATCH_ATTEMPTS`` resends."""
        method = getattr(self.client, op)

        resp = call(method, RequestItems=first)
        for attempt in range(BATCH_ATTEMPTS + 1):
            yield resp
            left = resp.get(unprocessed) or {}
            if not left:
                return
            if attempt == BATCH_ATTEMPTS:
                raise Throttled(aws_code=unprocessed)
            time.sleep(random.uniform(0, BATCH_BASE_DELAY * 2 ** attempt))
            resp = call(method, RequestItems=left)

    def batch_get(self, keys: list[tuple[str, str]], *, consistent: bool = False) -> list[dict]:
        """BatchGetItem in chunks of 100 with unprocessed-key retries. Order not preserved."""
        out: list[dict] = []
        uniq = list(dict.fromkeys(keys))
        for i in range(0, len(uniq), 100):
            request = {self.name: {"Keys": call(_ser_all, items=[{"pk": p, "sk": s} for p, s in uniq[i:i + 100]]),
                                   "ConsistentRead": consistent}}
            for resp in self._batch("batch_get_item", request, "UnprocessedKeys"):
                out.extend(from_ddb(deser_item(x)) for x in resp.get("Responses", {}).get(self.name, []))
        return out

    def get_many(self, keys: list[tuple[str, str]], *, consistent: bool = False) -> dict[tuple[str, str], dict]:
        """``batch_get`` keyed by ``(pk, sk)``: the items found (a missing one is absent)."""
        return {(i["pk"], i["sk"]): i for i in self.batch_get(keys, consistent=consistent)}

    def batch_write(self, puts: Iterable[dict] = (), deletes: Iterable[tuple[str, str]] = ()) -> None:
        """BatchWriteItem, 25 requests a call, unprocessed items resent with jittered backoff
        (``Throttled`` when they stay unprocessed). A later request for the same key replaces an
        earlier one. Every item's size is checked before the first call, so an oversized one
        writes nothing."""
        puts = list(puts)
        for item in puts:
            check_size(item)
        requests: dict[tuple[str, str], dict] = {}
        for item in puts:
            requests[(item["pk"], item["sk"])] = {"PutRequest": {"Item": item}}
        for pk, sk in deletes:
            requests[(pk, sk)] = {"DeleteRequest": {"Key": {"pk": pk, "sk": sk}}}
        pending = list(requests.values())
        for i in range(0, len(pending), 25):
            chunk = call(_wire_requests, requests=pending[i:i + 25])
            for _ in self._batch("batch_write_item", {self.name: chunk}, "UnprocessedItems"):
                pass

    # ---- transactions
    def transact(self, ops: list[dict], *, fresh: Iterable[int] = ()) -> None:
        """TransactWriteItems. Each op is one of:

        ``{"put": item, "condition": str?, "names": {}?, "values": {}?}``
        ``{"update": (pk, sk), "set": {}?, "add": {}?, "remove": []?, "condition": str?, "names"?, "values"?}``
        ``{"delete": (pk, sk), "condition": str?, ...}``
        ``{"check": (pk, sk), "condition": str, ...}``

        Raises ``ConditionFailed`` with per-op ``reasons`` when cancelled because a condition
        did not hold (or for any reason other than contention).

        A transaction cancelled only because its items were busy (every reason ``None`` or one
        of ``TRANSIENT_REASONS``: ``TransactionConflict`` when another request is writing one
        of the items, as DynamoDB reports it, or throttling) is retried with jittered
        exponential backoff (``TRANSACT_ATTEMPTS`` calls within ``TRANSACT_BUDGET`` seconds);
        when the conflict persists it raises ``Contention`` (an ``ApiError``: 503 with
        ``Retry-After: 1``), never a ``ConditionFailed`` that callers would read as a failed
        condition.

        ``fresh``: indexes of ``put`` ops whose key holds an id minted for this write (rule 2 of
        issue 23). A condition failure on those alone cannot be a domain conflict (a resent
        transaction is deduplicated by its ``ClientRequestToken``): it is an id collision, answered
        503 ``Retry-After`` (``fresh_key_taken``) for the client to retry, never a 500 or a 409.
        """
        if len(ops) > MAX_TRANSACT_ITEMS:
            # DynamoDB refuses it whole (ValidationException): a request that would need it is too big
            raise StorageRefused(f"At most {MAX_TRANSACT_ITEMS} items change in one request", status=413,
                                 code="PAYLOAD_TOO_LARGE", aws_message=f"{len(ops)} transaction items")
        total = sum(check_size(op["put"]) if "put" in op else
                    check_size({**(op.get("set") or {}), **(op.get("add") or {}), **(op.get("values") or {})},
                               what="change") for op in ops)
        if total > MAX_TRANSACT_BYTES:
            raise StorageRefused("The request would exceed DynamoDB's 4 MB transaction size", status=413,
                                 code="PAYLOAD_TOO_LARGE", aws_message=f"{total} bytes",
                                 details={"size_bytes": total, "limit_bytes": MAX_TRANSACT_BYTES})
        s = ser_item

        items = []
        for op in ops:
            names = dict(op.get("names") or {})
            values = dict(op.get("values") or {})
            if "put" in op:
                entry: dict[str, Any] = {"TableName": self.name, "Item": s(op["put"])}
                kind = "Put"
            elif "update" in op:
                pk, sk = op["update"]
                expr, e = build_update(set=op.get("set"), set_if_absent=op.get("set_if_absent"),
                                       add=op.get("add"), remove=op.get("remove"))
                names.update(e.names)
                values.update(e.values)
                entry = {"TableName": self.name, "Key": s({"pk": pk, "sk": sk}), "UpdateExpression": expr}
                kind = "Update"
            elif "delete" in op:
                pk, sk = op["delete"]
                entry = {"TableName": self.name, "Key": s({"pk": pk, "sk": sk})}
                kind = "Delete"
            else:
                pk, sk = op["check"]
                entry = {"TableName": self.name, "Key": s({"pk": pk, "sk": sk})}
                kind = "ConditionCheck"
            if op.get("condition"):
                entry["ConditionExpression"] = op["condition"]
            if names:
                entry["ExpressionAttributeNames"] = names
            if values:
                entry["ExpressionAttributeValues"] = s(values)
            items.append({kind: entry})
        fresh = set(fresh)
        try:
            self._transact_items(items)
        except ConditionFailed as exc:
            failed = [i for i, r in enumerate(exc.reasons) if r == "ConditionalCheckFailed"]
            if fresh and failed and set(failed) <= fresh:
                raise fresh_key_taken() from exc
            raise

    def _transact_items(self, items: list[dict]) -> None:
        """TransactWriteItems with retries of contention-only cancellations (see ``transact``).
        Each call gets its own ``ClientRequestToken`` (botocore), kept across botocore's own
        retries of that call, so a resent request is never applied twice."""
        deadline = time.monotonic() + TRANSACT_BUDGET
        attempt = 0
        while True:
            attempt += 1
            try:
                call(self.client.transact_write_items, TransactItems=items)
                return
            except self.client.exceptions.TransactionCanceledException as exc:
                raw = exc.response.get("CancellationReasons", [])
                reasons = [r.get("Code") or "None" for r in raw]
                if "ConditionalCheckFailed" in reasons:
                    failed = [i for i, r in enumerate(reasons) if r == "ConditionalCheckFailed"]
                    raise ConditionFailed(f"transaction cancelled: condition of op {failed} failed",
                                          reasons=reasons) from exc
                refused = [r for r in raw if (r.get("Code") or "") in ("ValidationError", "ItemCollectionSizeLimitExceeded")]
                if refused:
                    raise storage_refused(refused[0].get("Message") or "size") from exc
                if not is_contention(reasons):
                    logger.error("dynamodb transaction cancelled", extra={"aws_error_code": "TransactionCanceled",
                                                                          "reasons": reasons})
                    raise
                delay = random.uniform(0, TRANSACT_BASE_DELAY * 2 ** (attempt - 1))
                if attempt >= TRANSACT_ATTEMPTS or time.monotonic() + delay > deadline:
                    raise Contention(reasons=reasons) from exc
                time.sleep(delay)


def fresh_key_taken() -> Contention:
    """An insert under a freshly minted id found the key taken: an id collision (or a fault),
    never a domain conflict. 503 with ``Retry-After``: the client's retry mints a new id."""
    logger.error("dynamodb insert under a fresh id found the key taken")
    return Contention("The new resource could not be stored, please retry", reasons=["FreshKeyTaken"])


def is_contention(reasons: list[str]) -> bool:
    """True when a cancelled transaction failed only because its items were busy."""
    return any(r in TRANSIENT_REASONS for r in reasons) and all(r == "None" or r in TRANSIENT_REASONS
                                                                for r in reasons)
