"""Google sign-in: OpenID Connect authorization-code flow with PKCE (S256).

``start`` returns the provider URL and a signed, short-lived cookie carrying state, nonce and the
PKCE verifier. ``callback`` checks the state, exchanges the code at the token endpoint, verifies
the ID token (signature against the provider's JWKS with PyJWT, issuer, audience, expiry, nonce,
``email_verified``), refuses disposable domains, creates or links the account and signs in.
Every failure redirects to ``/login?error=<reason>``. Endpoints come from settings, so tests run
a local fake provider.
"""
from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
import threading
import urllib.error
import urllib.parse
import urllib.request

from lambdakit import clock
from lambdakit.errors import ApiError
from lambdakit.security import constant_time_equals, random_token, sign_token, verify_token

from ..auth import session_cookies, tokens
from ..settings import settings
from . import repository as repo
from . import service

logger = logging.getLogger("internships.google")

STATE_COOKIE = "oauth-state"
STATE_PATH = "/api/auth/google"
STATE_TTL = 600


class SignInFailed(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _redirect_uri() -> str:
    return settings().public_base_url.rstrip("/") + "/api/auth/google/callback"


def _frontend(path: str) -> str:
    s = settings()
    base = (s.frontend_url or s.public_base_url).rstrip("/")
    return base + path


def start(_next: str | None = None):
    s = settings()
    if not s.google_client_id:
        return _frontend("/login?error=google_not_configured"), session_cookies.short_cookie(STATE_COOKIE, "", STATE_PATH, 0)
    state, nonce, verifier = random_token(24), random_token(24), random_token(48)
    payload = _b64url(json.dumps({"s": state, "n": nonce, "v": verifier,
                                  "e": int(clock.now_ts()) + STATE_TTL}).encode())
    cookie_value = sign_token(tokens.signing_key(), payload)
    challenge = _b64url(hashlib.sha256(verifier.encode()).digest())
    params = {
        "response_type": "code", "client_id": s.google_client_id, "redirect_uri": _redirect_uri(),
        "scope": "openid email profile", "state": state, "nonce": nonce, "code_challenge": challenge,
        "code_challenge_method": "S256", "prompt": "select_account",
    }
    sep = "&" if "?" in s.google_auth_url else "?"
    return (s.google_auth_url + sep + urllib.parse.urlencode(params),
            session_cookies.short_cookie(STATE_COOKIE, cookie_value, STATE_PATH, STATE_TTL))


def _read_state(cookie: str | None) -> dict:
    if not cookie:
        raise SignInFailed("invalid_state")
    payload = verify_token(tokens.signing_key(), cookie)
    if payload is None:
        raise SignInFailed("invalid_state")
    try:
        data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except ValueError:
        raise SignInFailed("invalid_state") from None
    if not isinstance(data, dict) or int(data.get("e", 0)) < clock.now_ts():
        raise SignInFailed("state_expired")
    return data


def _client_secret() -> str:
    s = settings()
    if s.google_client_secret or not s.google_client_secret_arn:
        return s.google_client_secret
    from ..auth import secrets_store

    return secrets_store.secret_string(s.google_client_secret_arn)


def _exchange(code: str, verifier: str) -> dict:
    s = settings()
    body = urllib.parse.urlencode({
        "grant_type": "authorization_code", "code": code, "redirect_uri": _redirect_uri(),
        "client_id": s.google_client_id, "client_secret": _client_secret(), "code_verifier": verifier,
    }).encode()
    req = urllib.request.Request(s.google_token_url, data=body, method="POST",
                                 headers={"Content-Type": "application/x-www-form-urlencoded",
                                          "Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 - configured provider URL
            data = json.loads(resp.read(1_000_000))
    except (urllib.error.URLError, ValueError, TimeoutError, OSError):
        raise SignInFailed("token_exchange_failed") from None
    if not isinstance(data, dict) or not data.get("id_token"):
        raise SignInFailed("token_exchange_failed")
    return data


_jwk_clients: dict[str, object] = {}
_jwk_lock = threading.Lock()


def _jwk_client(url: str):
    import jwt

    with _jwk_lock:
        c = _jwk_clients.get(url)
        if c is None:
            c = jwt.PyJWKClient(url, cache_keys=True, lifespan=3600, timeout=10)
            _jwk_clients[url] = c
        return c


def verify_id_token(id_token: str, nonce: str) -> dict:
    import jwt

    s = settings()
    try:
        key = _jwk_client(s.google_jwks_url).get_signing_key_from_jwt(id_token)
        claims = jwt.decode(id_token, key.key, algorithms=["RS256"], audience=s.google_client_id,
                            issuer=[i.strip() for i in s.google_issuers.split(",") if i.strip()],
                            options={"require": ["exp", "iat", "iss", "aud", "sub"], "verify_exp": False,
                                     "verify_iat": False, "verify_nbf": False})
    except (jwt.PyJWTError, jwt.PyJWKClientError, OSError, ValueError):
        raise SignInFailed("invalid_id_token") from None
    now = clock.now_ts()
    try:
        expired = int(claims["exp"]) <= now or int(claims["iat"]) > now + 300
    except (TypeError, ValueError):
        raise SignInFailed("invalid_id_token") from None
    if expired:
        raise SignInFailed("invalid_id_token")
    if not constant_time_equals(str(claims.get("nonce", "")), nonce):
        raise SignInFailed("invalid_nonce")
    if not claims.get("email") or claims.get("email_verified") not in (True, "true"):
        raise SignInFailed("email_not_verified")
    return claims


def _sign_in(claims: dict) -> dict:
    try:
        email = service.normalize_email(str(claims["email"]))
    except ApiError:
        raise SignInFailed("invalid_email") from None
    if service.is_disposable(email):
        raise SignInFailed("disposable_email")
    sub = str(claims["sub"])
    picture = claims.get("picture") if isinstance(claims.get("picture"), str) else None
    if picture and not picture.startswith("https://"):
        picture = None
    uid = repo.user_id_for_email(email)
    if uid:
        user = repo.get_user(uid, consistent=True)
        if not user or user.get("disabled"):
            raise SignInFailed("account_disabled")
        if user.get("google_sub") and user["google_sub"] != sub:
            raise SignInFailed("account_conflict")
        if user.get("google_sub") != sub or (picture and not user.get("avatar_url")):
            user = repo.link_google(uid, sub, picture, clock.now_iso())
        return user
    name = str(claims.get("name") or email.split("@")[0])[:120]
    try:
        user = service.create_user(email=email, password=None, name=name, avatar_url=picture)
    except ApiError as exc:
        if exc.status == 409:  # created concurrently: link instead
            return _sign_in(claims)
        raise SignInFailed("account_error") from None
    return repo.link_google(user["id"], sub, None, clock.now_iso())


def callback(*, code: str | None, state: str | None, error: str | None, state_cookie: str | None):
    clear = session_cookies.short_cookie(STATE_COOKIE, "", STATE_PATH, 0)
    try:
        if error:
            raise SignInFailed(re.sub(r"[^a-z_]", "", error.lower())[:40] or "provider_error")
        st = _read_state(state_cookie)
        if not state or not constant_time_equals(state, str(st.get("s", ""))):
            raise SignInFailed("invalid_state")
        if not code or len(code) > 2048:
            raise SignInFailed("missing_code")
        data = _exchange(code, str(st["v"]))
        claims = verify_id_token(str(data["id_token"]), str(st["n"]))
        user = _sign_in(claims)
        tok = service.issue_tokens(user)
    except SignInFailed as exc:
        logger.info("google sign-in failed", extra={"reason": exc.reason})
        return _frontend(f"/login?error={urllib.parse.quote(exc.reason)}"), [clear]
    return _frontend("/dashboard"), [clear, *session_cookies.session_cookies(
        tok.access_token, tok.access_max_age, tok.refresh_token, tok.refresh_max_age, tok.csrf_token)]
