"""OpenID Connect relying-party calls to the configured provider (Google; locally its stand-in).

Data-access module of Google sign-in: every outbound call lives here. Each one follows the
project's SSRF rules for outbound fetches: ``lambdakit.ssrf.fetch``: the URL checked, the
connection pinned to the address that check approved (no DNS rebinding between check and
connect), no redirects followed, a timeout and a size cap. Plain http and loopback/private
addresses are allowed only when the stage is explicitly ``local`` (the stand-in provider on
127.0.0.1); a deployed stage needs https to public addresses.

* ``discovery()`` — the issuer's ``/.well-known/openid-configuration`` (cached an hour);
* ``exchange_code()`` — the token request (authorization code + PKCE verifier);
* ``signing_key()`` — the ID token's key from the provider's JWKS (PyJWT ``PyJWKClient``,
  fetching through the same pinned client).
"""
from __future__ import annotations

import http.client
import json
import threading
import urllib.parse
from typing import Any

from lambdakit import clock
from lambdakit.ssrf import ResponseTooLarge, UnsafeUrl, fetch

from ..settings import settings

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


_jwk_clients: dict[str, Any] = {}


def _jwk_client(uri: str) -> Any:
    from lambdakit.pyjwt import jwt  # lazily: PyJWT pulls in cryptography (cold start)

    class PinnedJWKClient(jwt.PyJWKClient):
        def fetch_data(self) -> Any:
            try:
                status, data = fetch_json(self.uri)
            except ProviderError as exc:
                raise jwt.PyJWKClientConnectionError(str(exc)) from None
            if status != 200:
                raise jwt.PyJWKClientConnectionError(f"JWKS HTTP {status}")
            data = self._as_jwk_set_payload(data)
            if self.jwk_set_cache is not None:
                self.jwk_set_cache.put(data)
            return data

    with _lock:
        client = _jwk_clients.get(uri)
        if client is None:
            client = PinnedJWKClient(uri, cache_keys=False, lifespan=3600, timeout=10)
            _jwk_clients[uri] = client
        return client


def signing_key(id_token: str) -> Any:
    """The public key that signed ``id_token`` from the provider's JWKS: by the token's ``kid``
    (Google always sends one); a token without ``kid`` only when the set has exactly one key."""
    from lambdakit.pyjwt import jwt

    client = _jwk_client(discovery()["jwks_uri"])
    if jwt.get_unverified_header(id_token).get("kid"):
        return client.get_signing_key_from_jwt(id_token).key
    keys = client.get_signing_keys()
    if len(keys) != 1:
        raise jwt.PyJWKClientError("token has no kid and the key set is ambiguous")
    return keys[0].key


def forget() -> None:
    """Drop cached discovery documents and key sets (tests that restart the provider)."""
    with _lock:
        _discovery.clear()
        _jwk_clients.clear()
