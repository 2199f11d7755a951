"""JWKS fetching and caching.

The key set is fetched from the configured URL and kept in-process for
``jwks_cache_seconds``. A token whose ``kid`` is not in the cached set triggers one
re-fetch (key rotation), at most once per ``jwks_refetch_min_seconds`` so that a
flood of forged key ids cannot turn into a flood of outbound requests.

Local mode: ``AWS_ENDPOINT_URL`` redirects every AWS SDK call to the emulator; in the
``local`` stage the same variable redirects a Cognito JWKS URL
(``https://cognito-idp.<region>.amazonaws.com/<pool>/.well-known/jwks.json``) to
``<endpoint>/<pool>/.well-known/jwks.json``, which the emulator serves. ``file://`` and
plain ``http://`` URLs are accepted in the ``local`` stage only.
"""
from __future__ import annotations

import json
import os
import threading
from urllib.parse import urlsplit

from lambdakit import clock
from lambdakit.observability import get_logger

from ..settings import settings

logger = get_logger("exams")


class JwksUnavailable(Exception):
    pass


class _Cache:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.url: str | None = None
        self.keys: dict[str, object] = {}
        self.fetched_at: float = 0.0


_cache = _Cache()


def effective_url() -> str:
    s = settings()
    url = s.jwks_url
    endpoint = os.environ.get("AWS_ENDPOINT_URL")
    if s.is_local and endpoint and url:
        parts = urlsplit(url)
        host = (parts.hostname or "")
        if host.startswith("cognito-idp.") and host.endswith(".amazonaws.com"):
            return endpoint.rstrip("/") + parts.path
    return url


def _fetch(url: str) -> dict[str, object]:
    import urllib.request

    from lambdakit.pyjwt import jwt

    scheme = urlsplit(url).scheme
    if scheme != "https" and not (settings().is_local and scheme in ("http", "file")):
        raise JwksUnavailable(f"JWKS URL scheme {scheme!r} not allowed")
    try:
        with urllib.request.urlopen(url, timeout=3) as resp:  # noqa: S310 - operator-configured URL
            data = json.loads(resp.read(1_000_000))
    except Exception as exc:  # noqa: BLE001 - network/parse failure of the key set
        raise JwksUnavailable(str(exc)) from exc
    keys: dict[str, object] = {}
    for k in data.get("keys", []) if isinstance(data, dict) else []:
        try:
            if k.get("kty") != "RSA" or k.get("use", "sig") != "sig":
                continue
            keys[str(k.get("kid", ""))] = jwt.PyJWK(k, algorithm="RS256").key
        except Exception:  # noqa: BLE001 - skip keys we cannot use
            continue
    return keys


def get_key(kid: str):
    """Public key for ``kid`` or ``None``. Raises ``JwksUnavailable`` when no key set can be had."""
    s = settings()
    url = effective_url()
    now = clock.now_ts()
    with _cache.lock:
        stale = _cache.url != url or not _cache.keys or now - _cache.fetched_at > s.jwks_cache_seconds
        if not stale and kid in _cache.keys:
            return _cache.keys[kid]
        if not stale and now - _cache.fetched_at < s.jwks_refetch_min_seconds:
            return None  # unknown kid, fetched moments ago: do not hammer the provider
        try:
            keys = _fetch(url)
        except JwksUnavailable:
            logger.warning("JWKS fetch failed")
            if _cache.url == url and _cache.keys:
                return _cache.keys.get(kid)  # serve the last good set while the provider is down
            raise
        _cache.url, _cache.keys, _cache.fetched_at = url, keys, now
        return keys.get(kid)


def reset() -> None:
    with _cache.lock:
        _cache.url, _cache.keys, _cache.fetched_at = None, {}, 0.0
