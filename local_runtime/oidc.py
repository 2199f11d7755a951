"""The local OpenID Connect provider that stands in for Google (as moto stands in for AWS).

It is ``oidc-provider-mock`` (a maintained Flask/Authlib provider made for exactly this) served
on ``127.0.0.1`` from a thread of the local runtime (``make dev``) or of a test. Two things are
added around it, neither of which hand-writes provider logic:

* the werkzeug debugger that its ``init_app`` wraps around the app is taken off again (an
  interactive console has no place even on loopback);
* PKCE: the mock's Authlib grant is registered without the RFC 7636 extension, so a thin WSGI
  wrapper records each issued code's ``code_challenge`` and refuses a token request whose
  ``code_verifier`` does not match it (``invalid_grant``), as Google does.

Clients must register (``require_client_registration``), like a client created in Google's
console, and a nonce is required. Users: ``TEST_USERS`` are offered on the provider's sign-in
form with one click; any other subject typed there becomes a user whose only claim is
``email`` (not verified, so the service refuses it); ``put_user`` sets any claims.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import logging
import os
import socket
import threading
import urllib.request
import warnings
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

log = logging.getLogger("local_runtime.oidc")

DEFAULT_PORT = 9400

#: ``sub`` → claims of the users offered on the sign-in form.
TEST_USERS: dict[str, dict[str, Any]] = {
    "student.google@example.com": {"email": "student.google@example.com", "email_verified": True,
                                   "name": "Google Student"},
    "unverified.google@example.com": {"email": "unverified.google@example.com", "email_verified": False,
                                      "name": "Unverified Google User"},
}


class _Pkce:
    """WSGI wrapper: S256 PKCE checked at the token endpoint for codes issued with a challenge."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.challenges: dict[str, tuple[str, str]] = {}
        self._lock = threading.Lock()

    def __call__(self, environ: dict, start_response: Any) -> Any:
        path = environ.get("PATH_INFO", "")
        if path == "/oauth2/token" and environ.get("REQUEST_METHOD") == "POST":
            size = int(environ.get("CONTENT_LENGTH") or 0)
            body = environ["wsgi.input"].read(size) if size else b""
            environ["wsgi.input"] = io.BytesIO(body)
            form = {k: v[0] for k, v in parse_qs(body.decode("latin-1")).items()}
            with self._lock:
                expected = self.challenges.pop(form.get("code", ""), None)
            if expected and not _pkce_ok(form.get("code_verifier", ""), *expected):
                data = json.dumps({"error": "invalid_grant", "error_description": "PKCE verification failed"}).encode()
                start_response("400 BAD REQUEST", [("Content-Type", "application/json"),
                                                   ("Content-Length", str(len(data)))])
                return [data]
            return self.app(environ, start_response)
        if path == "/oauth2/authorize" and environ.get("REQUEST_METHOD") == "POST":
            query = {k: v[0] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()}
            challenge = query.get("code_challenge")

            def recording_start_response(status: str, headers: list, exc_info: Any = None) -> Any:
                location = next((v for k, v in headers if k.lower() == "location"), "")
                code = parse_qs(urlsplit(location).query).get("code", [""])[0]
                if challenge and code:
                    with self._lock:
                        self.challenges[code] = (challenge, query.get("code_challenge_method", "plain"))
                return start_response(status, headers, exc_info)

            return self.app(environ, recording_start_response)
        return self.app(environ, start_response)


def _listen(host: str, port: int) -> socket.socket | None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        return None
    sock.listen(128)
    return sock


def _pkce_ok(verifier: str, challenge: str, method: str) -> bool:
    if method == "S256":
        verifier = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return bool(verifier) and hmac.compare_digest(verifier, challenge)


class OidcProvider:
    """One provider on ``host:port`` (port 0, or a busy preferred port, takes a free one)."""

    def __init__(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT, *, fallback: bool = True) -> None:
        # Authlib refuses plain http unless told this is a development transport (loopback only).
        os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"
        with warnings.catch_warnings():  # Authlib's deprecation notices about the mock's imports
            import authlib.deprecate  # noqa: F401 - installs its own "always" filter; ours goes in front

            warnings.simplefilter("ignore")
            import oidc_provider_mock
            from oidc_provider_mock import User
        import werkzeug.serving

        app = oidc_provider_mock.app(require_client_registration=True, require_nonce=True,
                                     user_claims=[User(sub=s, claims=dict(c)) for s, c in TEST_USERS.items()])
        inner = getattr(app.wsgi_app, "app", None)  # unwrap werkzeug.debug.DebuggedApplication
        if inner is not None:
            app.wsgi_app = inner
        app.debug = False
        self.pkce = _Pkce(app.wsgi_app)
        app.wsgi_app = self.pkce  # type: ignore[method-assign]
        for noisy in ("werkzeug", "oidc_provider_mock"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
        # Bind here (werkzeug's make_server exits the process when a port is taken): the preferred
        # port, else a free one, so parallel runtimes (tests) never collide.
        sock = _listen(host, port)
        if sock is None:
            if not fallback or port == 0:
                raise OSError(f"OpenID provider: port {port} is in use")
            log.warning("OpenID provider: port %s is busy, using a free one", port)
            sock = _listen(host, 0)
            assert sock is not None
        try:
            self._server = werkzeug.serving.make_server(host, sock.getsockname()[1], app, threaded=True,
                                                        fd=sock.fileno())
        finally:
            sock.close()  # werkzeug works on its own duplicate of the descriptor
        self.issuer = f"http://{host}:{self._server.socket.getsockname()[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="oidc-provider", daemon=True)
        self._thread.start()

    # -- the provider's own HTTP API (documented by oidc-provider-mock) ----------------------------
    def _call(self, method: str, path: str, body: Any) -> tuple[int, bytes]:
        req = urllib.request.Request(self.issuer + path, data=json.dumps(body).encode(), method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 - our own loopback server
            return resp.status, resp.read()

    def register_client(self, redirect_uris: list[str]) -> tuple[str, str]:
        """Register a confidential client (``client_secret_post``); ``(client_id, client_secret)``."""
        _, raw = self._call("POST", "/oauth2/clients", {"redirect_uris": redirect_uris,
                                                         "token_endpoint_auth_method": "client_secret_post"})
        data = json.loads(raw)
        return str(data["client_id"]), str(data["client_secret"])

    def put_user(self, sub: str, claims: dict[str, Any]) -> None:
        """Set (replace) the claims the provider puts in ``sub``'s ID token."""
        self._call("PUT", "/users/" + quote(sub, safe=""), claims)

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=3)


def dev_info(provider: OidcProvider, client_id: str, api_base: str) -> dict[str, Any]:
    """The ``internships.google`` block of ``.local/dev.json``."""
    sub = next(iter(TEST_USERS))
    return {
        "provider": "oidc-provider-mock (stands in for https://accounts.google.com)",
        "issuer": provider.issuer,
        "discovery_url": provider.issuer + "/.well-known/openid-configuration",
        "client_id": client_id,
        "sign_in_url": api_base + "/api/auth/google",
        "test_user": {"sub": sub, **TEST_USERS[sub]},
        "how_to_sign_in": ("Open sign_in_url in a browser; on the provider's form pick the test user "
                           f"{sub!r} (or type it as Subject) and press Authorize. Any other subject typed there "
                           "has no verified e-mail and is refused (error=email_not_verified); PUT "
                           f"{provider.issuer}/users/<sub> with JSON claims makes other users."),
        "unverified_user": "unverified.google@example.com",
    }
