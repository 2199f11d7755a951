"""SSM Parameter Store reads for every service: ``GetParameter`` on the process's shared client
(``lambdakit.aws``), each value cached in the process for ``max_age`` seconds.

Not Powertools Parameters, for the reason ``lambdakit.secrets`` gives (its import loads ``boto3``,
``s3transfer`` and ``multiprocessing`` on a cold first request): the same time-to-live cache in
front of one SDK call. A missing parameter is ``None`` (also cached, so a stage waiting for its
value costs one call per ``max_age``); any other failure raises what the SDK raised.
Data-access module.
"""
from __future__ import annotations

import threading
import time

from . import aws

DEFAULT_MAX_AGE = 60  # seconds

_lock = threading.Lock()
# name -> (the client it was read with, monotonic time it was read, value or None when missing)
_cache: dict[str, tuple[object, float, str | None]] = {}


def parameter_value(name: str, max_age: int = DEFAULT_MAX_AGE) -> str | None:
    """The parameter's value, ``None`` when it does not exist; read again when the process's copy is
    ``max_age`` seconds old or older (0: every call reads)."""
    client = aws.client("ssm")
    hit = _cache.get(name)
    if hit is not None and hit[0] is client and time.monotonic() - hit[1] < max_age:
        return hit[2]
    read_at = time.monotonic()
    try:
        value: str | None = client.get_parameter(Name=name)["Parameter"]["Value"]
    except client.exceptions.ParameterNotFound:
        value = None
    with _lock:
        _cache[name] = (client, read_at, value)
    return value


def forget() -> None:
    """Drop cached values (tests; ``aws.reset`` drops clients)."""
    with _lock:
        _cache.clear()
