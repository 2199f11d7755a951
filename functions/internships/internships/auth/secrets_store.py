"""Secrets Manager reads of the auth package (and of the cron route's bearer secret):
``lambdakit.secrets`` (GetSecretValue on the shared client, cached five minutes like the Lambda
secrets extension).

``prefetch(arn)``: in a Lambda process, the first read of a secret may start on a daemon thread
so that its round trip (and its client's creation) overlaps the request's own work (importing
PyJWT, creating the DynamoDB client); ``secret_string`` waits for that thread, then reads the
cache it filled. A prefetch that failed leaves nothing behind: the request's own read then
happens (and fails or succeeds) exactly as without it.

Data-access module: the only place in the auth package that reads secrets.
"""
from __future__ import annotations

import threading

from lambdakit import secrets

_lock = threading.Lock()
_started: set[str] = set()
_pending: dict[str, threading.Thread] = {}


def _warm(arn: str) -> None:
    try:
        secrets.secret_string(arn)
    except Exception:  # noqa: BLE001 - the request's own read raises it, as without the prefetch
        pass


def prefetch(arn: str) -> bool:
    """Start the first read of ``arn`` in this process on a thread (Lambda processes only, once);
    True when it started."""
    from lambdakit import deferred

    if arn in _started or not deferred.active():
        return False
    with _lock:
        if arn in _started:
            return False
        _started.add(arn)
        t = threading.Thread(target=_warm, args=(arn,), name="secret-prefetch", daemon=True)
        _pending[arn] = t
    _client()
    t.start()
    return True


def _client() -> None:
    """Create the Secrets Manager client on the caller's thread before the prefetch starts: the
    thread's first act is then the request, and its round trip overlaps the caller's next work
    (creating the DynamoDB client). Client creation is CPU work wherever it runs (one GIL, and
    ``lambdakit.aws`` creates clients under one lock); on the thread it queued behind the DynamoDB
    client and the round trip began only after both. A failure here is left to the read, which raises it as without the prefetch."""
    from lambdakit import aws

    try:
        aws.client("secretsmanager")
    except Exception:  # noqa: BLE001 - the read (thread, then the request's own) meets it again
        pass


def secret_string(arn: str, max_age: int = secrets.DEFAULT_MAX_AGE) -> str:
    t = _pending.pop(arn, None)
    if t is not None:
        t.join()
    _started.add(arn)  # read once: the cache has it, a prefetch would only add a thread
    return secrets.secret_string(arn, max_age=max_age)


def secret_json(arn: str) -> dict:
    return secrets.secret_json(arn)


def forget() -> None:
    secrets.forget()
