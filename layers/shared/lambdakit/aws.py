"""AWS clients, created lazily and cached per process (low-level clients only: ``lambdakit.ddb``
uses the low-level client).

Clients are botocore's own (``Session.create_client``), not boto3's: a client boto3 makes is
the same botocore client, with nothing our code uses added except, for S3, the managed-transfer
methods (``upload_fileobj`` & co.), and importing the ``boto3`` package costs ≈ 15 ms of a cold
first request (docs/platform.md, "Clients without the boto3 package"). The one managed transfer
(``campaigns.contacts.jobs.upload_export``) calls boto3's ``upload_fileobj`` with our client.

The services in ``BUNDLED_SERVICES`` are built from ``botodata/`` (``tools/botodata.py``): the
botocore data of those services only, so the loader neither lists botocore's ~440 service
folders nor parses its 1.25 MB ``endpoints.json`` on the first client of a cold container
(≈65 → ≈11 ms; docs/quality.md, "Cold first request"). It is used only when its ``VERSION`` is
the installed botocore's; any other service, or another release, gets botocore's own loader.

The endpoint comes from ``AWS_ENDPOINT_URL`` (botocore reads it itself), which is
how the local runtime and the tests reach moto. Only data-access modules import
this module. With tracing on, botocore is patched for X-Ray right before the first
client is created (``observability.patch_aws_sdk``).
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from .observability import patch_aws_sdk

#: The services whose botocore data ships in ``botodata/`` (every client the services create).
BUNDLED_SERVICES = ("cognito-idp", "dynamodb", "s3", "secretsmanager", "sesv2", "sqs", "ssm")
DATA_DIR = Path(__file__).with_name("botodata")

_lock = threading.Lock()
_clients: dict[tuple[str, str | None], Any] = {}
_sessions: dict[bool, Any] = {}  # botocore sessions: bundled data or botocore's own
_hooks: list[tuple[str, Any, str | None]] = []


def _config(name: str = ""):
    from botocore.config import Config

    extra: dict[str, Any] = {}
    if name == "s3":
        # SigV4 everywhere, so presigned URLs carry X-Amz-Expires (15-minute evidence links).
        extra["signature_version"] = "s3v4"
    return Config(
        retries={"max_attempts": 4, "mode": "standard"},
        connect_timeout=3,
        read_timeout=10,
        max_pool_connections=32,
        **extra,
    )


def bundled_data_usable() -> bool:
    """``botodata/`` exists and was cut from the installed botocore release."""
    import botocore

    try:
        return (DATA_DIR / "VERSION").read_text().strip() == botocore.__version__
    except OSError:
        return False


def _get_session(service: str = ""):
    bundled = service in BUNDLED_SERVICES and bundled_data_usable()
    session = _sessions.get(bundled)
    if session is None:
        patch_aws_sdk()
        import botocore.session

        core = botocore.session.Session()
        if bundled:
            from botocore.loaders import Loader

            core.register_component("data_loader", Loader(extra_search_paths=[str(DATA_DIR)],
                                                          include_default_search_paths=False))
        for event, handler, unique_id in _hooks:
            core.register(event, handler, unique_id=unique_id)
        session = _sessions[bundled] = core
    return session


def register_hook(event: str, handler: Any, unique_id: str | None = None) -> None:
    """Register a botocore event handler on every client this module makes until ``reset``,
    whichever session (bundled data or not) builds it (benchmarks' call counters)."""
    with _lock:
        _hooks.append((event, handler, unique_id))
        for session in _sessions.values():
            session.register(event, handler, unique_id=unique_id)
        for c in _clients.values():
            c.meta.events.register(event, handler, unique_id=unique_id)


def unregister_hook(event: str, unique_id: str) -> None:
    """Take back a hook ``register_hook`` added with ``unique_id`` (a test's recorder)."""
    with _lock:
        _hooks[:] = [h for h in _hooks if not (h[0] == event and h[2] == unique_id)]
        for session in _sessions.values():
            session.unregister(event, unique_id=unique_id)
        for c in _clients.values():
            c.meta.events.unregister(event, unique_id=unique_id)


def client(name: str, region: str | None = None) -> Any:
    key = (name, region)
    c = _clients.get(key)
    if c is None:
        with _lock:
            c = _clients.get(key)
            if c is None:
                c = _get_session(name).create_client(name, region_name=region or _region(), config=_config(name))
                _clients[key] = c
    return c


def _region() -> str:
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"


def reset() -> None:
    """Drop cached clients, sessions and hooks (tests switch endpoints between runs)."""
    with _lock:
        _clients.clear()
        _sessions.clear()
        _hooks.clear()
