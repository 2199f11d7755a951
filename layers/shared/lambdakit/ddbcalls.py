"""DynamoDB call mechanics shared by ``lambdakit.ddb``: Python <-> DynamoDB values, one call with
its failures translated to domain errors (issue 23 rule 1), and DynamoDB's size limits checked
before a write is sent (issue 23 rule 3).

Sizes follow DynamoDB's item-size rules (attribute names and values in UTF-8 bytes; a number at
most 21 bytes; 3 bytes per list/map plus 1 per element): an item over 400 KB or a transaction
over 4 MB is refused with 413 ``PAYLOAD_TOO_LARGE`` naming its largest field, before any write.
"""
from __future__ import annotations

import decimal
import logging
from decimal import Decimal
from typing import Any, Callable

from .ddbtypes import deserialize, serialize
from .errors import ConditionFailed, Contention, StorageRefused, Throttled

logger = logging.getLogger("lambdakit.ddb")

#: DynamoDB's limits: one item, one TransactWriteItems request (all its items together).
MAX_ITEM_BYTES = 400 * 1024
MAX_TRANSACT_BYTES = 4 * 1024 * 1024
#: Single-call error codes that mean "busy, retry later" once botocore's own retries are spent.
THROTTLE_CODES = frozenset({"ProvisionedThroughputExceededException", "ThrottlingException",
                            "RequestLimitExceeded", "LimitExceededException"})
CONFLICT_CODES = frozenset({"TransactionConflictException", "TransactionInProgressException"})
#: Fragments of DynamoDB's ValidationException messages that refuse a VALUE (as opposed to a
#: malformed request, which is a bug and stays a 500).
_VALUE_REFUSALS = ("size has exceeded", "number overflow", "number underflow", "significant digits",
                   "empty string", "utf-8", "type mismatch", "invalid string", "exceeds the maximum")


# ---------------------------------------------------------------- conversion
def to_ddb(value: Any) -> Any:
    """Python → DynamoDB-safe (floats become Decimal, empty strings kept)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, dict):
        return {k: to_ddb(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_ddb(v) for v in value]
    if isinstance(value, set):
        return {to_ddb(v) for v in value}
    return value


def from_ddb(value: Any) -> Any:
    """DynamoDB → plain JSON types (Decimal becomes int or float, sets become sorted lists)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {k: from_ddb(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_ddb(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(from_ddb(v) for v in value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return value


# ---------------------------------------------------------------- sizes
def size_of(value: Any) -> int:
    """Bytes DynamoDB counts for one attribute value (an upper bound for numbers)."""
    if value is None or isinstance(value, bool):
        return 1
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    if isinstance(value, (bytes, bytearray)):
        return len(value)
    if isinstance(value, (int, float, Decimal)):
        return 21
    if isinstance(value, dict):
        return 3 + sum(len(str(k).encode("utf-8", "surrogatepass")) + size_of(v) + 1 for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return 3 + sum(size_of(v) + 1 for v in value)
    if isinstance(value, (set, frozenset)):
        return sum(size_of(v) for v in value)
    return len(str(value))


def check_size(attributes: dict, *, limit: int = MAX_ITEM_BYTES, what: str = "item") -> int:
    """The DynamoDB size of ``attributes`` (name -> value); ``StorageRefused`` (413, naming the
    largest field) when it is over ``limit``."""
    sizes = {k: len(str(k).encode("utf-8", "surrogatepass")) + size_of(v) for k, v in attributes.items()}
    total = sum(sizes.values())
    if total > limit:
        field = max(sizes, key=lambda k: sizes[k])
        raise StorageRefused(f"The {what} would exceed DynamoDB's {limit // 1024} KB limit (largest field: {field})",
                             status=413, code="PAYLOAD_TOO_LARGE", aws_message=f"{total} bytes",
                             details={"field": field, "size_bytes": total, "limit_bytes": limit})
    return total


# ---------------------------------------------------------------- calls
def call(fn: Callable[..., Any], **kw: Any) -> Any:
    """Run one DynamoDB data-plane call and translate its failures (issue 23, rule 1):

    * ``ConditionalCheckFailedException`` → ``ConditionFailed`` (and nothing else is);
    * throttling after botocore's retries → ``Throttled`` (503, ``Retry-After``); a write that
      meets a running transaction → ``Contention`` (503);
    * a value DynamoDB refuses (too many digits, out of range, NaN, an item over 400 KB, an
      empty key string) → ``StorageRefused`` (422, or 413 for size);
    * anything else is re-raised after one log line carrying the AWS error code (a 500 in
      the service's format, rendered by the resolver).
    """
    try:
        return fn(**kw)
    except (decimal.DecimalException, OverflowError) as exc:
        raise StorageRefused("A number in the request cannot be stored (at most 38 significant digits)",
                             aws_message=type(exc).__name__) from None
    except TypeError as exc:
        text = str(exc)
        if "NaN" in text or "Infinity" in text or "Unsupported type" in text:
            raise StorageRefused("A value in the request cannot be stored", aws_message=text) from None
        raise
    except Exception as exc:
        response = getattr(exc, "response", None)
        if not isinstance(response, dict):
            raise
        err = response.get("Error") or {}
        code, message = err.get("Code", ""), err.get("Message", "")
        if code == "TransactionCanceledException":
            raise  # classified by the caller from its cancellation reasons
        if code == "ConditionalCheckFailedException":
            item = response.get("Item")
            raise ConditionFailed(item=from_ddb(deser_item(item)) if item else None) from exc
        if code in THROTTLE_CODES:
            logger.warning("dynamodb throttled", extra={"aws_error_code": code})
            raise Throttled(aws_code=code) from exc
        if code in CONFLICT_CODES:
            logger.warning("dynamodb write conflict", extra={"aws_error_code": code})
            raise Contention(reasons=[code]) from exc
        if code == "ValidationException" and refused_value(message):
            raise storage_refused(message) from exc
        logger.error("dynamodb error", extra={"aws_error_code": code, "aws_operation": getattr(fn, "__name__", "")})
        raise


def refused_value(message: str) -> bool:
    low = (message or "").lower()
    return any(f in low for f in _VALUE_REFUSALS)


def storage_refused(message: str) -> StorageRefused:
    if "size" in (message or "").lower():
        return StorageRefused("The item would exceed DynamoDB's 400 KB item size", status=413,
                              code="PAYLOAD_TOO_LARGE", aws_message=message)
    return StorageRefused(aws_message=message)


# ---------------------------------------------------------------- wire format
# The low-level client speaks DynamoDB's typed JSON ({"S": ...}); these convert whole items with
# ``lambdakit.ddbtypes`` (boto3's TypeSerializer/TypeDeserializer without importing boto3; stateless,
# so safe across threads, unlike the resource layer's shared condition builder, which garbles
# expressions built concurrently).
def ser_item(item: dict) -> dict:
    """Python item (or key, or expression values) → DynamoDB wire format."""
    return {k: serialize(to_ddb(v)) for k, v in item.items()}


def deser_item(item: dict) -> dict:
    """DynamoDB wire format → Python item (numbers as Decimal, binaries as bytes; ``from_ddb``
    makes them plain)."""
    return {k: deserialize(v) for k, v in item.items()}
