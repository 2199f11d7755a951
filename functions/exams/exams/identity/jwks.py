"""JWKS fetching and caching.

The key set is fetched from the configured URL and kept in-process for
``jwks_cache_seconds``. A token whose ``kid`` is not in the cached set triggers one
re-fetch (key rotation), at most once per ``jwks_refetch_min_seconds`` so that a
flood of forged key ids cannot turn into a flood of outbound requests.

Shared cache (issue 21): a successful fetch is also stored in the service's table, one item per
configured URL (``item_key()``: ``pk=JWKS#<sha256 of the URL>``, ``sk=KEYS``) holding the URL,
the usable keys as fetched (JSON), the fetch time and a TTL. A process whose own cache cannot
answer (cold, or older than ``jwks_cache_seconds``) reads that item in the BatchGetItem that also
reads the caller's profile, login marker and platform settings (``identity.authn.verify_token``)
and adopts it (``load_item``) when it is for the configured URL and newer than what the process
holds; its fetch time counts as the set's age, for both ``jwks_cache_seconds`` and
``jwks_refetch_min_seconds``. The item missing, expired or without the token's ``kid`` (past the
refetch interval): the URL is fetched as before and the item replaced, conditionally on being
newer (``fetched_ms``), so concurrent cold starts do not fight. The provider down: the last good
set (the process's or the item's) is served; nothing at all: ``JwksUnavailable`` (503).

Security: the item is written in one place only, ``_store``, called by ``get_key`` right after a
successful fetch of the configured URL (scheme rules applied, keys parsed and filtered exactly as
served). Nothing the request carries can reach it: the token only selects a ``kid`` to look up.
A principal able to write arbitrary items of this table could plant keys here, but such a
principal can already write a ``super_admin`` profile in the same table, so the item widens
nothing; a stored key set is adopted only for the URL it names, so a changed ``jwks_url`` is
never served another URL's keys.

Local mode: ``AWS_ENDPOINT_URL`` redirects every AWS SDK call to the emulator; in the
``local`` stage the same variable redirects a Cognito JWKS URL
(``https://cognito-idp.<region>.amazonaws.com/<pool>/.well-known/jwks.json``) to
``<endpoint>/<pool>/.well-known/jwks.json``, which the emulator serves. ``file://`` and
plain ``http://`` URLs are accepted in the ``local`` stage only.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from lambdakit import clock
from lambdakit.observability import get_logger

from ..settings import settings

if TYPE_CHECKING:
    from lambdakit.rs256 import RSAPublicKey

logger = get_logger("exams")

ITEM_SK = "KEYS"
#: How long past ``jwks_cache_seconds`` the stored set survives (TTL): the last good set for an outage.
ITEM_KEEP_SECONDS = 86400


class JwksUnavailable(Exception):
    pass


class _Cache:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.url: str | None = None
        self.keys: dict[str, RSAPublicKey] = {}
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


def item_key(url: str | None = None) -> tuple[str, str]:
    """Key of the stored key set of ``url`` (default: the configured one)."""
    url = effective_url() if url is None else url
    return f"JWKS#{hashlib.sha256(url.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}", ITEM_SK


def _parse(data: object) -> tuple[dict[str, RSAPublicKey], list[dict]]:
    """The usable keys of a JWKS document: ``({kid: public key}, [the JWKs kept])``. Usable: an
    RSA signing key ``lambdakit.rs256`` accepts (public, 2048-8192 bits, e 65537, ``alg`` RS256
    or none; ``lambdakit.rs256.signing_keys``)."""
    from lambdakit.rs256 import signing_keys  # lazily: PyJWT (its Algorithm interface)

    usable = signing_keys(data)
    return {str(kid if kid is not None else ""): key for kid, key, _ in usable}, [jwk for _, _, jwk in usable]


def _fetch(url: str) -> tuple[dict[str, RSAPublicKey], list[dict]]:
    import urllib.request

    scheme = urlsplit(url).scheme
    if scheme != "https" and not (settings().is_local and scheme in ("http", "file")):
        raise JwksUnavailable(f"JWKS URL scheme {scheme!r} not allowed")
    try:
        with urllib.request.urlopen(url, timeout=3) as resp:  # noqa: S310 - operator-configured URL
            data = json.loads(resp.read(1_000_000))
    except Exception as exc:  # noqa: BLE001 - network/parse failure of the key set
        raise JwksUnavailable(str(exc)) from exc
    return _parse(data)


def _table():
    from lambdakit.ddb import Table

    return Table(settings().table_name)


def _store(url: str, kept: list[dict], fetched_at: float) -> None:
    """Replace the stored key set of ``url`` with a set just fetched from it, unless a newer one is
    stored already. Best effort: a failed write only costs the next cold process a fetch."""
    from lambdakit.errors import ConditionFailed

    pk, sk = item_key(url)
    fetched_ms = int(fetched_at * 1000)
    item = {"pk": pk, "sk": sk, "url": url, "keys": json.dumps(kept, separators=(",", ":")),
            "fetched_ms": fetched_ms,
            "ttl": int(fetched_at) + settings().jwks_cache_seconds + ITEM_KEEP_SECONDS}
    try:
        _table().put(item, condition="attribute_not_exists(pk) OR fetched_ms < :f", values={":f": fetched_ms})
    except ConditionFailed:
        pass  # a concurrent process stored a set fetched at the same time or later
    except Exception:  # noqa: BLE001 - the shared cache is an optimisation
        logger.warning("JWKS cache write failed", exc_info=True)


def needs_item() -> bool:
    """Whether this process's key set cannot answer (none for the configured URL, or older than
    ``jwks_cache_seconds``): the caller then reads ``item_key()`` and hands it to ``load_item``."""
    url = effective_url()
    now = clock.now_ts()
    with _cache.lock:
        return _cache.url != url or not _cache.keys or now - _cache.fetched_at > settings().jwks_cache_seconds


def load_item(item: dict | None) -> None:
    """Adopt the stored key set ``item`` (read with ``item_key()``) when it names the configured
    URL and is newer than the process's set. Never raises: an unusable item is ignored."""
    if not item:
        return
    url = effective_url()
    try:
        if item.get("url") != url:
            return
        fetched_at = min(int(item["fetched_ms"]) / 1000, clock.now_ts())  # never from the future
        with _cache.lock:
            if _cache.url == url and _cache.keys and _cache.fetched_at >= fetched_at:
                return
        keys, _ = _parse({"keys": json.loads(item["keys"])})
    except Exception:  # noqa: BLE001 - a damaged item: fetch as without one
        logger.warning("JWKS cache item unusable", exc_info=True)
        return
    if not keys:
        return
    with _cache.lock:
        if not (_cache.url == url and _cache.keys and _cache.fetched_at >= fetched_at):
            _cache.url, _cache.keys, _cache.fetched_at = url, keys, fetched_at


def get_key(kid: str) -> RSAPublicKey | None:
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
            keys, kept = _fetch(url)
        except JwksUnavailable:
            logger.warning("JWKS fetch failed")
            if _cache.url == url and _cache.keys:
                return _cache.keys.get(kid)  # serve the last good set while the provider is down
            raise
        _cache.url, _cache.keys, _cache.fetched_at = url, keys, now
    if kept:
        _store(url, kept, now)
    return keys.get(kid)


def reset() -> None:
    with _cache.lock:
        _cache.url, _cache.keys, _cache.fetched_at = None, {}, 0.0
