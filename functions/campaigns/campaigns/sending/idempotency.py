"""``Idempotency-Key`` for /email/send, /email/bulk and /campaigns/{id}/send (Powertools
Idempotency on the service table). The same key, account and route within 24 h returns the first
response and does nothing again; the same key with a different body is refused (422); a request
still running under that key gives 409."""
from __future__ import annotations

from typing import Any, Callable

from lambdakit.errors import ApiError, Conflict, ValidationFailed

from ..settings import settings

EXPIRY_SECONDS = 24 * 3600
_OPS: dict[str, Callable[..., dict]] = {}
_decorated: dict[str, tuple[Callable[..., dict], Any]] = {}


def _build(table_name: str):
    from aws_lambda_powertools.utilities.idempotency import (
        DynamoDBPersistenceLayer,
        IdempotencyConfig,
        idempotent_function,
    )

    layer = DynamoDBPersistenceLayer(table_name=table_name, key_attr="pk", sort_key_attr="sk",
                                     static_pk_value="IDEMPOTENCY#campaigns", expiry_attr="ttl")
    config = IdempotencyConfig(event_key_jmespath="[op, account, key]", payload_validation_jmespath="body",
                               expires_after_seconds=EXPIRY_SECONDS)

    @idempotent_function(data_keyword_argument="request", persistence_store=layer, config=config)
    def run(request: dict) -> dict:
        return _OPS[request["op"]](**request["args"])

    return run, config


def register(op: str, fn: Callable[..., dict]) -> None:
    _OPS[op] = fn


def call(op: str, account_id: str, key: str | None, body: Any, args: dict, lambda_context: Any = None) -> dict:
    """Run ``op`` (a registered function returning a JSON-able dict) once per (account, key)."""
    if not key:
        return _OPS[op](**args)
    if len(key) > 255:
        raise ValidationFailed("Idempotency-Key is too long", fields={"Idempotency-Key": "At most 255 characters"})
    from aws_lambda_powertools.utilities.idempotency.exceptions import (
        IdempotencyAlreadyInProgressError,
        IdempotencyValidationError,
    )

    name = settings().table_name
    fn, config = _decorated.get(name) or _decorated.setdefault(name, _build(name))
    if lambda_context is not None and hasattr(lambda_context, "get_remaining_time_in_millis"):
        config.register_lambda_context(lambda_context)  # in-progress records expire with the invocation
    try:
        return fn(request={"op": op, "account": account_id, "key": key, "body": body, "args": args})
    except IdempotencyValidationError:
        raise ValidationFailed("Idempotency-Key was used with a different request",
                               fields={"Idempotency-Key": "Already used with a different request body"}) from None
    except IdempotencyAlreadyInProgressError:
        raise Conflict("A request with this Idempotency-Key is still in progress", code="CONFLICT") from None
    except ApiError:
        raise
