"""Secrets Manager reads for every service: ``GetSecretValue`` on the process's shared client
(``lambdakit.aws``), each value cached in the process for ``max_age`` seconds (five minutes by
default, the Lambda Parameters and Secrets extension's default TTL).

Why not Powertools Parameters (its ``SecretsProvider``, used here until issue #21's round 10): the
package imports ``boto3`` at its own import (its AppConfig provider), and with it ``s3transfer``
and ``multiprocessing``: 20-30 ms of CPU on the cold first request of every function that reads a
secret (every authenticated internships route, campaigns' link tracking), the largest cost left
between those functions and the cold-request target. What we used of it is this module: a
time-to-live cache in front of one SDK call. A failed read raises what the SDK raised
(throttling, unavailability, a missing secret), so each service's error mapping applies.
Data-access module.
"""
from __future__ import annotations

import json
import threading
import time

from . import aws

DEFAULT_MAX_AGE = 300  # seconds, like the Lambda Parameters and Secrets extension's default TTL

_lock = threading.Lock()
# secret id -> (the client it was read with, monotonic time it was read, value): a value older
# than the caller's ``max_age`` is read again; a new client after ``aws.reset()`` (tests switching
# endpoints) reads afresh
_cache: dict[str, tuple[object, float, str]] = {}


def secret_string(arn: str, max_age: int = DEFAULT_MAX_AGE) -> str:
    """The secret's ``SecretString`` (a binary secret's bytes as text), read again when the
    process's copy is ``max_age`` seconds old or older (0: every call reads)."""
    client = aws.client("secretsmanager")
    hit = _cache.get(arn)
    if hit is not None and hit[0] is client and time.monotonic() - hit[1] < max_age:
        return hit[2]
    read_at = time.monotonic()
    out = client.get_secret_value(SecretId=arn)
    value = out["SecretString"] if "SecretString" in out else bytes(out["SecretBinary"]).decode()
    with _lock:
        _cache[arn] = (client, read_at, value)
    return value


def secret_json(arn: str, max_age: int = DEFAULT_MAX_AGE) -> dict:
    """The secret as a JSON object (``{}`` when it is not one)."""
    try:
        data = json.loads(secret_string(arn, max_age))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def forget() -> None:
    """Drop cached values (tests and rotations; ``aws.reset`` drops clients)."""
    with _lock:
        _cache.clear()
