"""OpenID Connect relying-party calls to the configured provider (Google; locally its stand-in).

Data-access module of Google sign-in: every outbound call lives here. Each one follows the
project's SSRF rules for outbound fetches: ``lambdakit.ssrf.fetch``: the URL checked, the
connection pinned to the address that check approved (no DNS rebinding between check and
connect), no redirects followed, a timeout and a size cap. Plain http and loopback/private
addresses are allowed only when the stage is explicitly ``local`` (the stand-in provider on
127.0.0.1); a deployed stage needs https to public addresses.

* ``discovery()`` — the issuer's ``/.well-known/openid-configuration`` (cached an hour);
* ``exchange_code()`` — the token request (authorization code + PKCE verifier);
* ``signing_key()`` — the ID token's key from the provider's JWKS (fetched with ``fetch_json``,
  cached an hour; keys: ``lambdakit.rs256.RSAPublicKey``, verified in pure Python without
  cryptography: docs/platform.md, "Layers").
"""
from __future__ import annotations

import http.client
import json
import threading
import urllib.parse
from typing import TYPE_CHECKING, Any

from lambdakit import clock
from lambdakit.ssrf import ResponseTooLarge, UnsafeUrl, fetch

from ..settings import settings

if TYPE_CHECKING:
    from lambdakit.rs256 import RSAPublicKey

MAX_BYTES = 1_000_000
DISCOVERY_TTL = 3600.0
USER_AGENT = "internships-oidc/1.0"


class ProviderError(Exception):
    """The provider could not be reached, refused the request, or answered nonsense."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


def fetch_json(url: str, *, form: dict[str, str] | None = None) -> tuple[int, Any]:
    """GET (or POST ``form``) ``url``; ``(status, parsed JSON)``. ``ProviderError`` when refused
    by the SSRF rules, unreachable, too large or not JSON (``lambdakit.ssrf.fetch``: pinned to the
    checked address, no redirects)."""
    s = settings()
    local = s.is_local
    headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
    body = None
    if form is not None:
        body = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    try:
        res = fetch(url, method="POST" if form is not None else "GET", body=body, headers=headers,
                    timeout=s.google_http_timeout_seconds, allow_private=local, require_https=not local,
                    max_bytes=MAX_BYTES)
    except UnsafeUrl as exc:
        raise ProviderError("unsafe_provider_url", str(exc)) from None
    except ResponseTooLarge:
        raise ProviderError("provider_response_too_large") from None
    except (OSError, http.client.HTTPException) as exc:
        raise ProviderError("provider_unreachable", type(exc).__name__) from None
    try:
        return res.status, json.loads(res.body)
    except ValueError:
        raise ProviderError("provider_bad_response", f"HTTP {res.status}") from None


_discovery: dict[str, tuple[float, dict]] = {}
_lock = threading.Lock()


def discovery() -> dict:
    """The issuer's discovery document (``issuer``, ``authorization_endpoint``, ``token_endpoint``,
    ``jwks_uri``), cached per process; its ``issuer`` must equal the configured one."""
    issuer = settings().google_issuer.rstrip("/")
    now = clock.now_ts()
    with _lock:
        hit = _discovery.get(issuer)
    if hit and now - hit[0] < DISCOVERY_TTL:
        return hit[1]
    status, doc = fetch_json(issuer + "/.well-known/openid-configuration")
    if status != 200 or not isinstance(doc, dict):
        raise ProviderError("discovery_failed", f"HTTP {status}")
    if str(doc.get("issuer", "")).rstrip("/") != issuer or not all(
            isinstance(doc.get(k), str) for k in ("authorization_endpoint", "token_endpoint", "jwks_uri")):
        raise ProviderError("discovery_failed", "issuer or endpoints do not match")
    with _lock:
        _discovery[issuer] = (now, doc)
    return doc


def exchange_code(*, code: str, verifier: str, redirect_uri: str, client_id: str, client_secret: str) -> dict:
    """The token response (must carry an ``id_token``); ``ProviderError("code_rejected")`` when
    the provider refuses the code (used before, expired, other client, PKCE mismatch)."""
    status, data = fetch_json(discovery()["token_endpoint"], form={
        "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "client_id": client_id,
        "client_secret": client_secret, "code_verifier": verifier})
    if status == 400 and isinstance(data, dict) and data.get("error") == "invalid_grant":
        raise ProviderError("code_rejected")
    if status != 200 or not isinstance(data, dict) or not isinstance(data.get("id_token"), str):
        raise ProviderError("token_exchange_failed", f"HTTP {status}")
    return data


#: How long a fetched key set is used; an unknown ``kid`` re-fetches it at once, then at most
#: every ``JWKS_REFRESH_COOLDOWN`` seconds (a flood of made-up key ids is not a flood of fetches).
JWKS_TTL = 3600.0
JWKS_REFRESH_COOLDOWN = 30.0
_jwks: dict[str, tuple[float, dict[str, RSAPublicKey]]] = {}
_jwks_refreshed: dict[str, float] = {}


def _fetch_keys(uri: str) -> dict[str, RSAPublicKey]:
    """The signing keys of the key set at ``uri``: ``{kid: key}`` of the members
    ``lambdakit.rs256.signing_keys`` finds usable (RSA public, RS256, ``use`` sig or none) that have
    a ``kid`` (the first of a repeated one); ``ProviderError`` when there is none."""
    from lambdakit.rs256 import signing_keys  # lazily: PyJWT (its Algorithm interface)

    status, data = fetch_json(uri)
    if status != 200:
        raise ProviderError("jwks_failed", f"HTTP {status}")
    if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
        raise ProviderError("jwks_failed", "not a JWK set")
    keys: dict[str, RSAPublicKey] = {}
    for kid, key, _ in signing_keys(data):
        if isinstance(kid, str) and kid and kid not in keys:
            keys[kid] = key
    if not keys:
        raise ProviderError("jwks_failed", "no usable signing keys")
    return keys


def _signing_keys(uri: str, *, refresh: bool = False) -> dict[str, RSAPublicKey]:
    now = clock.now_ts()
    with _lock:
        hit = _jwks.get(uri)
    if hit and not refresh and now - hit[0] < JWKS_TTL:
        return hit[1]
    keys = _fetch_keys(uri)
    with _lock:
        _jwks[uri] = (now, keys)
    return keys


def signing_key(id_token: str) -> RSAPublicKey:
    """The public key that signed ``id_token`` from the provider's JWKS: by the token's ``kid``
    (Google always sends one; not in the cached set: the set is fetched again, at most every
    ``JWKS_REFRESH_COOLDOWN`` seconds); a token without ``kid`` only when the set has exactly one
    key. ``ProviderError`` when there is none (``jwt.PyJWTError`` for a malformed token)."""
    from lambdakit.pyjwt import jwt

    uri = discovery()["jwks_uri"]
    kid = jwt.get_unverified_header(id_token).get("kid")
    keys = _signing_keys(uri)
    if not kid:
        if len(keys) != 1:
            raise ProviderError("unknown_signing_key", "token has no kid and the key set is ambiguous")
        return next(iter(keys.values()))
    key = keys.get(kid)
    if key is None:
        now = clock.now_ts()
        with _lock:
            last = _jwks_refreshed.get(uri)
            cooling = last is not None and 0 <= now - last < JWKS_REFRESH_COOLDOWN
            if not cooling:
                _jwks_refreshed[uri] = now
        if not cooling:
            key = _signing_keys(uri, refresh=True).get(kid)
    if key is None:
        raise ProviderError("unknown_signing_key", kid[:100])
    return key


def forget() -> None:
    """Drop cached discovery documents and key sets (tests that restart the provider)."""
    with _lock:
        _discovery.clear()
        _jwks.clear()
        _jwks_refreshed.clear()
