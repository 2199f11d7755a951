"""Google sign-in: OpenID Connect authorization-code flow with PKCE (S256).

``start`` returns the provider's authorization URL (from the issuer's discovery document) and a
signed, HttpOnly, 10-minute cookie carrying state, nonce and the PKCE verifier, signed with its
own key (``auth.tokens.oauth_state_key``). ``callback`` checks the state against the cookie and
claims it once (a replayed callback is refused), exchanges the code with the verifier, verifies
the ID token (signature against the provider's JWKS, ``iss``, ``aud``, ``exp``, ``nonce``,
``email_verified``), refuses disposable domains, then creates the account (e-mail verified) or
signs in to the existing one with the same e-mail: one already linked to this Google account just
signs in; one never linked (its e-mail never proved, e.g. a password registration) is taken over
by the verified owner in one conditional write (``repository.link_google``: Google linked, e-mail
verified, password removed, earlier sessions revoked). It signs in with the same cookies as a
password sign-in. The ``picture`` claim is kept only when it passes the shared URL rule. Every
failure redirects to ``<front end>/login?error=<reason>`` and creates nothing. Outbound calls:
``oidc`` (SSRF rules).
"""
from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
import urllib.parse

from lambdakit import clock
from lambdakit.errors import ApiError, ConditionFailed
from lambdakit.observability import count
from lambdakit.security import constant_time_equals, random_token, sha256_hex, sign_token, verify_token
from lambdakit.validated import web_url

from ..auth import session_cookies, tokens
from ..settings import settings
from . import oidc, service
from . import repository as repo

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


def redirect_uri() -> str:
    return settings().public_base_url.rstrip("/") + "/api/auth/google/callback"


def _frontend(path: str) -> str:
    s = settings()
    base = (s.frontend_url or s.public_base_url).rstrip("/")
    return base + path


def _failure(reason: str):
    return _frontend(f"/login?error={urllib.parse.quote(reason)}")


def _clear_state():
    return session_cookies.short_cookie(STATE_COOKIE, "", STATE_PATH, 0)


def start(_next: str | None = None):
    s = settings()
    key = tokens.oauth_state_key()
    if not s.google_client_id or not key:
        return _failure("google_not_configured"), _clear_state()
    try:
        authorize = str(oidc.discovery()["authorization_endpoint"])
    except oidc.ProviderError as exc:
        logger.warning("google sign-in: provider discovery failed", extra={"reason": exc.reason})
        return _failure("provider_unavailable"), _clear_state()
    state, nonce, verifier = random_token(24), random_token(24), random_token(48)
    payload = _b64url(json.dumps({"s": state, "n": nonce, "v": verifier,
                                  "e": int(clock.now_ts()) + STATE_TTL}).encode())
    params = {
        "response_type": "code", "client_id": s.google_client_id, "redirect_uri": redirect_uri(),
        "scope": "openid email profile", "state": state, "nonce": nonce,
        "code_challenge": _b64url(hashlib.sha256(verifier.encode()).digest()), "code_challenge_method": "S256",
        "prompt": "select_account",
    }
    sep = "&" if "?" in authorize else "?"
    return (authorize + sep + urllib.parse.urlencode(params),
            session_cookies.short_cookie(STATE_COOKIE, sign_token(key, payload), STATE_PATH, STATE_TTL))


def _read_state(cookie: str | None) -> dict:
    key = tokens.oauth_state_key()
    if not cookie or not key:
        raise SignInFailed("invalid_state")
    payload = verify_token(key, cookie)
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


def verify_id_token(id_token: str, nonce: str) -> dict:
    """Claims of a valid ID token for this client, else ``SignInFailed`` naming what is wrong."""
    from lambdakit.pyjwt import jwt, rs256_decoder  # lazily (cold start); RS256 in pure Python

    s = settings()
    try:
        issuer = str(oidc.discovery()["issuer"]).rstrip("/")
        key = oidc.signing_key(id_token)
    except (oidc.ProviderError, jwt.PyJWTError):
        raise SignInFailed("invalid_id_token") from None
    issuers = [issuer, *(i.strip() for i in s.google_alt_issuers.split(",") if i.strip())]
    try:
        claims = rs256_decoder.decode(id_token, key, algorithms=["RS256"], audience=s.google_client_id,
                                      issuer=issuers,
                                      options={"require": ["exp", "iat", "iss", "aud", "sub"], "verify_exp": False,
                                               "verify_iat": False, "verify_nbf": False})
    except jwt.InvalidAudienceError:
        raise SignInFailed("invalid_audience") from None
    except jwt.InvalidIssuerError:
        raise SignInFailed("invalid_issuer") from None
    except jwt.PyJWTError:
        raise SignInFailed("invalid_id_token") from None
    now = clock.now_ts()  # time claims against the service clock (one source of time)
    try:
        expired = int(claims["exp"]) <= now or int(claims["iat"]) > now + 300
    except (TypeError, ValueError):
        raise SignInFailed("invalid_id_token") from None
    if expired:
        raise SignInFailed("id_token_expired")
    if not constant_time_equals(str(claims.get("nonce", "")), nonce):
        raise SignInFailed("invalid_nonce")
    if not claims.get("email") or claims.get("email_verified") not in (True, "true"):
        raise SignInFailed("email_not_verified")
    return claims


def _picture(claims: dict) -> str | None:
    """The ``picture`` claim when it passes the rule of every stored URL (``lambdakit.validated.web_url``)
    and is https; anything else is dropped (logged), never failing the sign-in."""
    raw = claims.get("picture")
    if raw is None or raw == "":
        return None
    try:
        url = web_url(raw.strip() if isinstance(raw, str) else raw)
    except ValueError as exc:
        logger.info("google sign-in: picture dropped", extra={"reason": str(exc)})
        return None
    if not url or urllib.parse.urlsplit(url).scheme.lower() != "https":
        logger.info("google sign-in: picture dropped", extra={"reason": "must be https"})
        return None
    return str(url)


def _link(uid: str, sub: str, picture: str | None) -> dict:
    """Sign in to (and, when needed, link) the existing account ``uid``; the write is conditional on the
    account as read, so a concurrent change is read again (twice at most, then refused)."""
    for _ in range(2):
        user = repo.get_user(uid, consistent=True)
        if not user or user.get("disabled"):
            raise SignInFailed("account_disabled")
        if user.get("google_sub") and user["google_sub"] != sub:
            raise SignInFailed("account_conflict")
        if user.get("google_sub") == sub and not (picture and not user.get("avatar_url")):
            return user  # verified and linked: nothing to write
        try:
            linked = repo.link_google(user, sub, picture, clock.now_iso())
        except ConditionFailed:
            continue
        if not user.get("google_sub"):
            logger.info("google sign-in: unverified account taken over by the verified owner",
                        extra={"user_id": uid, "had_password": bool(user.get("password_hash"))})
        return linked
    raise SignInFailed("account_conflict")


def _account(claims: dict) -> tuple[dict, bool]:
    """The account to sign in (``created`` True when made now): linked by e-mail or created."""
    try:
        email = service.normalize_email(str(claims["email"]))
    except ApiError:
        raise SignInFailed("invalid_email") from None
    if service.is_disposable(email):
        raise SignInFailed("disposable_email")
    sub = str(claims["sub"])
    picture = _picture(claims)
    uid = repo.user_id_for_email(email)
    if uid:
        return _link(uid, sub, picture), False
    name = str(claims.get("name") or email.split("@")[0])[:120]
    try:
        user = service.create_user(email=email, password=None, name=name, avatar_url=picture, google_sub=sub,
                                   email_verified=True)
    except ApiError as exc:
        if exc.status == 409:  # created concurrently: link instead
            return _account(claims)
        raise SignInFailed("account_error") from None
    return user, True


def callback(*, code: str | None, state: str | None, error: str | None, state_cookie: str | None):
    s = settings()
    try:
        if error:
            raise SignInFailed(re.sub(r"[^a-z_]", "", error.lower())[:40] or "provider_error")
        if not s.google_client_id:
            raise SignInFailed("google_not_configured")
        st = _read_state(state_cookie)
        if not state or not constant_time_equals(state, str(st.get("s", ""))):
            raise SignInFailed("invalid_state")
        if not code or len(code) > 2048:
            raise SignInFailed("missing_code")
        if not repo.claim_oauth_state(sha256_hex(state), int(st["e"]) + 60):
            raise SignInFailed("state_already_used")
        try:
            data = oidc.exchange_code(code=code, verifier=str(st["v"]), redirect_uri=redirect_uri(),
                                      client_id=s.google_client_id, client_secret=_client_secret())
        except oidc.ProviderError as exc:
            raise SignInFailed("code_rejected" if exc.reason == "code_rejected" else "token_exchange_failed") \
                from None
        claims = verify_id_token(str(data["id_token"]), str(st["n"]))
        user, created = _account(claims)
        tok = service.issue_tokens(user)
    except SignInFailed as exc:
        logger.info("google sign-in refused", extra={"reason": exc.reason})
        return _failure(exc.reason), [_clear_state()]
    if created:
        count("Registrations")
    count("SignIns", method="google")
    return _frontend("/dashboard"), [_clear_state(), *session_cookies.session_cookies(
        tok.access_token, tok.access_max_age, tok.refresh_token, tok.refresh_max_age, tok.csrf_token)]
