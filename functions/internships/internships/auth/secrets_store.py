"""Secrets Manager reads, cached per process for a few minutes (like the Lambda secrets extension).

Data-access module: the only place in the auth package that talks to AWS for secrets.
"""
from __future__ import annotations

import json
import threading

from lambdakit import aws, clock

_TTL = 300.0
_cache: dict[str, tuple[float, str]] = {}
_lock = threading.Lock()


def secret_string(arn: str) -> str:
    now = clock.now_ts()
    with _lock:
        hit = _cache.get(arn)
        if hit and now - hit[0] < _TTL:
            return hit[1]
    value = aws.client("secretsmanager").get_secret_value(SecretId=arn)["SecretString"]
    with _lock:
        _cache[arn] = (now, value)
    return value


def secret_json(arn: str) -> dict:
    raw = secret_string(arn)
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def forget() -> None:
    with _lock:
        _cache.clear()
