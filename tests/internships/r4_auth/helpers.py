"""Helpers of the Google sign-in tests: drive the flow the way a browser would."""
from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from urllib.parse import parse_qs, urlsplit

CALLBACK = "http://127.0.0.1:3003/api/auth/google/callback"  # the harness's PublicBaseUrl + callback


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):  # noqa: ANN002, ANN003
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def provider_post(url: str, form: dict) -> tuple[int, dict, bytes]:
    """POST a form to the provider (plain urllib: the moto mock patches ``requests``)."""
    data = "&".join(f"{k}={urllib.request.quote(str(v), safe='')}" for k, v in form.items()).encode()
    req = urllib.request.Request(url, data=data, method="POST",
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        with _opener.open(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def start(c) -> tuple[dict, str, str]:
    """``GET /api/auth/google`` → (query of the provider URL, ``oauth-state=...`` cookie pair, URL)."""
    r = c.get("/api/auth/google")
    assert r.status == 302, r.text
    loc = r.headers["location"]
    q = {k: v[0] for k, v in parse_qs(urlsplit(loc).query).items()}
    cookie = next(ck for ck in r.cookies if ck.startswith("oauth-state="))
    return q, cookie.split(";", 1)[0], loc


def authorize(url: str, sub: str) -> dict:
    """The user picks ``sub`` on the provider's form; returns the callback's query (code, state)."""
    status, headers, body = provider_post(url, {"sub": sub})
    assert status == 302, body[:500]
    loc = headers.get("Location") or headers.get("location")
    assert loc.startswith(CALLBACK), loc
    return {k: v[0] for k, v in parse_qs(urlsplit(loc).query).items()}


def callback(c, query: dict, cookie: str | None):
    return c.get("/api/auth/google/callback", query=query, headers={"cookie": cookie} if cookie else {})


def error_of(r) -> str | None:
    m = re.search(r"/login\?error=([a-z_]+)$", r.headers.get("location", ""))
    return m.group(1) if m else None


def token_for(provider, client_id: str, client_secret: str, sub: str, nonce: str, redirect: str) -> str:
    """A genuine ID token from the provider for ``client_id`` (another client, in the audience test)."""
    q = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect, "scope": "openid email profile",
         "state": "x", "nonce": nonce}
    url = provider.issuer + "/oauth2/authorize?" + "&".join(f"{k}={urllib.request.quote(v, safe='')}"
                                                            for k, v in q.items())
    status, headers, _ = provider_post(url, {"sub": sub})
    code = parse_qs(urlsplit(headers.get("Location") or headers["location"]).query)["code"][0]
    status, _, body = provider_post(provider.issuer + "/oauth2/token", {
        "grant_type": "authorization_code", "code": code, "redirect_uri": redirect, "client_id": client_id,
        "client_secret": client_secret})
    assert status == 200, body
    return json.loads(body)["id_token"]
