"""Access tokens: HS256 JWTs valid ``access_token_minutes`` (15), key from Secrets Manager; the OAuth
state cookie's own key."""
from __future__ import annotations

from lambdakit import clock, ids
from lambdakit.errors import ServiceUnavailable

from ..settings import settings
from . import secrets_store

ISSUER = "internships"
AUDIENCE = "internships-api"
MAX_TOKEN_LENGTH = 4096


def signing_key() -> str:
    s = settings()
    if s.jwt_secret:
        return s.jwt_secret
    if not s.jwt_secret_arn:
        raise ServiceUnavailable("Authentication is not configured")
    return secrets_store.secret_string(s.jwt_secret_arn)


def prefetch_signing_key() -> bool:
    """Start the signing key's first read of this Lambda process on a thread (``secrets_store.prefetch``);
    True when it started (the caller may do other work during its round trip)."""
    s = settings()
    return bool(not s.jwt_secret and s.jwt_secret_arn and secrets_store.prefetch(s.jwt_secret_arn))


def oauth_state_key() -> str | None:
    """HMAC key of the OAuth state cookie: its own secret, never the access-token key (a leak of
    one does not forge the other). ``None`` when not configured (Google sign-in then refuses)."""
    s = settings()
    if s.oauth_state_secret:
        return s.oauth_state_secret
    if not s.oauth_state_secret_arn:
        return None
    return secrets_store.secret_string(s.oauth_state_secret_arn)


def issue_access_token(user: dict) -> tuple[str, int]:
    """``(token, max_age_seconds)`` for a user item."""
    ttl = settings().access_token_minutes * 60
    now = int(clock.now_ts())
    claims = {
        "sub": user["id"], "role": user.get("role", "student"), "email": user.get("email", ""),
        "name": user.get("name", ""), "iat": now, "nbf": now, "exp": now + ttl, "iss": ISSUER, "aud": AUDIENCE,
        "typ": "access", "jti": ids.new_id(),
        # the user's token version: logout and password resets bump it, revoking older tokens
        "tv": int(user.get("token_version", 0) or 0),
    }
    from lambdakit.pyjwt import jwt  # lazily: PyJWT pulls in cryptography (cold start)

    return jwt.encode(claims, signing_key(), algorithm="HS256"), ttl


def decode_access_token(token: str) -> dict | None:
    """Claims of a valid token, else ``None`` (bad signature, expired, wrong type...)."""
    if not token or len(token) > MAX_TOKEN_LENGTH:
        return None
    from lambdakit.pyjwt import jwt  # lazily: PyJWT pulls in cryptography (cold start)

    try:
        claims = jwt.decode(
            token, signing_key(), algorithms=["HS256"], audience=AUDIENCE, issuer=ISSUER,
            options={"require": ["exp", "iat", "sub", "iss", "aud"], "verify_exp": False, "verify_iat": False,
                     "verify_nbf": False},
        )
    except jwt.PyJWTError:
        return None
    # Time claims are checked against the service clock (one source of time; tests shift it).
    now = clock.now_ts()
    try:
        exp, nbf = int(claims["exp"]), int(claims.get("nbf", claims["iat"]))
    except (TypeError, ValueError):
        return None
    if claims.get("typ") != "access" or exp <= now or nbf > now + 5:
        return None
    return claims
