"""boto3 clients, created lazily and cached per process (no boto3 resources: ``lambdakit.ddb``
uses the low-level client).

The endpoint comes from ``AWS_ENDPOINT_URL`` (boto3 reads it itself), which is
how the local runtime and the tests reach moto. Only data-access modules import
this module. With tracing on, botocore is patched for X-Ray right before the first
client is created (``observability.patch_aws_sdk``).
"""
from __future__ import annotations

import os
import threading
from typing import Any

from .observability import patch_aws_sdk

_lock = threading.Lock()
_clients: dict[tuple[str, str | None], Any] = {}
_session = None


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


def _get_session():
    global _session
    if _session is None:
        patch_aws_sdk()
        import boto3

        _session = boto3.session.Session()
    return _session


def client(name: str, region: str | None = None) -> Any:
    key = (name, region)
    c = _clients.get(key)
    if c is None:
        with _lock:
            c = _clients.get(key)
            if c is None:
                c = _get_session().client(name, region_name=region or _region(), config=_config(name))
                _clients[key] = c
    return c


def _region() -> str:
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"


def reset() -> None:
    """Drop cached clients (tests switch endpoints between runs)."""
    global _session
    with _lock:
        _clients.clear()
        _session = None
