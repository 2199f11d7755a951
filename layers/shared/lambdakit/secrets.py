"""Secrets Manager reads for every service: Powertools Parameters' ``SecretsProvider`` (its
in-process cache with ``max_age``) on the process's shared client (``lambdakit.aws``).

Why not ``parameters.get_secret``: its default provider builds a second boto3 session whose
client loads botocore's full data (≈ 30 ms of a cold first request; docs/platform.md, "AWS
clients and the botocore data cut"); the provider given our client costs nothing extra. A failed
read raises what the SDK raised (Powertools wraps every error in ``GetParameterError``; the
services map botocore's errors - throttling, unavailability - themselves). Data-access module.
"""
from __future__ import annotations

import json
import threading
from typing import Any

from . import aws

DEFAULT_MAX_AGE = 300  # seconds, like the Lambda Parameters and Secrets extension's default TTL

_lock = threading.Lock()
_provider: Any = None


def _get_provider() -> Any:
    """One provider per client: after ``aws.reset()`` (tests switching endpoints) a new one."""
    global _provider
    client = aws.client("secretsmanager")
    if _provider is None or _provider.client is not client:
        with _lock:
            if _provider is None or _provider.client is not client:
                from aws_lambda_powertools.utilities.parameters import SecretsProvider

                _provider = SecretsProvider(boto3_client=client)
    return _provider


def secret_string(arn: str, max_age: int = DEFAULT_MAX_AGE) -> str:
    """The secret's ``SecretString`` (a binary secret's bytes as text), cached ``max_age`` s."""
    from aws_lambda_powertools.utilities.parameters.exceptions import GetParameterError

    try:
        value = _get_provider().get(arn, max_age=max_age)
    except GetParameterError as exc:
        if isinstance(exc.__context__, Exception):
            raise exc.__context__ from None
        raise
    return value.decode() if isinstance(value, bytes) else str(value)


def secret_json(arn: str, max_age: int = DEFAULT_MAX_AGE) -> dict:
    """The secret as a JSON object (``{}`` when it is not one)."""
    try:
        data = json.loads(secret_string(arn, max_age))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def forget() -> None:
    """Drop cached values and the provider (tests and rotations; ``aws.reset`` drops clients)."""
    global _provider
    with _lock:
        _provider = None
