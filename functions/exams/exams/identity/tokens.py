"""ID token verification: RS256 against the configured issuer, audience and JWKS (the signature:
``lambdakit.pyjwt.rs256_decoder``, pure Python; docs/platform.md, "Layers")."""
from __future__ import annotations

from dataclasses import dataclass

from lambdakit import clock
from lambdakit.errors import ApiError

from ..settings import settings
from . import jwks
from .principal import Identity


class TokenRejected(ApiError):
    status = 401

    def __init__(self, code: str, message: str, reason: str) -> None:
        super().__init__(message, code=code, status=401)
        self.reason = reason


def _invalid(reason: str) -> TokenRejected:
    return TokenRejected("INVALID_TOKEN", "The ID token is invalid", reason)


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, ``None`` when absent/other scheme."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    token = token.strip()
    return token or None


@dataclass(frozen=True)
class Unverified:
    """A token's header and claims before its signature is checked: never to be trusted, only
    used to choose what to read with the key set (``identity.authn.verify_token``)."""

    header: dict
    claims: dict

    @property
    def kid(self) -> str:
        return str(self.header.get("kid", ""))

    def user_id(self) -> str | None:
        uid = self.claims.get(settings().user_id_claim) or self.claims.get("sub")
        return uid if isinstance(uid, str) and uid else None

    def auth_time(self) -> int | None:
        return _auth_time(self.claims)


def _auth_time(claims: dict) -> int | None:
    """The sign-in time of ``claims`` (``auth_time``, else ``iat``), as ``Identity`` and the login
    marker use it."""
    auth_time, iat = claims.get("auth_time"), claims.get("iat")
    if isinstance(auth_time, (int, float)):
        return int(auth_time)
    return int(iat) if isinstance(iat, (int, float)) else None


def precheck(token: str) -> Unverified:
    """The checks that need no key (shape, algorithm, issuer, audience, token use), in the order
    ``verify`` makes them; raises the same ``TokenRejected``."""
    from lambdakit.pyjwt import jwt

    s = settings()
    try:
        header = jwt.get_unverified_header(token)
        unverified = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        raise _invalid("malformed") from None
    if header.get("alg") != "RS256":
        raise _invalid("algorithm")
    if not isinstance(unverified, dict):
        raise _invalid("malformed")
    # Issuer/audience first: a token of another project is INVALID_TOKEN, not a signature failure.
    if s.jwt_issuer and unverified.get("iss") != s.jwt_issuer:
        raise _invalid("issuer")
    aud = unverified.get("aud")
    auds = aud if isinstance(aud, list) else [aud]
    if s.jwt_audience and s.jwt_audience not in auds:
        raise _invalid("audience")
    if unverified.get("token_use") not in (None, "id"):
        raise _invalid("token_use")
    return Unverified(header, unverified)


def verify(token: str, pre: Unverified | None = None) -> Identity:
    """The identity of a valid token; ``pre``: its ``precheck`` already made. The signature is
    checked by ``lambdakit.pyjwt.rs256_decoder`` (pure-Python RS256, no cryptography)."""
    from lambdakit.pyjwt import jwt, rs256_decoder

    s = settings()
    header = (pre or precheck(token)).header
    try:
        key = jwks.get_key(str(header.get("kid", "")))
    except jwks.JwksUnavailable:
        raise ApiError("Identity provider keys are unavailable", code="SERVICE_UNAVAILABLE", status=503,
                       details={"reason": "identity_provider_unavailable"}) from None
    if key is None:
        raise TokenRejected("TOKEN_VERIFICATION_FAILED", "Token signature could not be verified", "unknown_kid")
    try:
        claims = rs256_decoder.decode(
            token, key, algorithms=["RS256"],
            options={"verify_exp": False, "verify_iat": False, "verify_nbf": False, "verify_aud": False,
                     "verify_iss": False},
        )
    except jwt.InvalidSignatureError:
        raise TokenRejected("TOKEN_VERIFICATION_FAILED", "Token signature could not be verified", "signature") from None
    except jwt.PyJWTError:
        raise _invalid("malformed") from None
    now = clock.now_ts()
    leeway = s.jwt_leeway_seconds
    exp = claims.get("exp")
    if not isinstance(exp, (int, float)):
        raise _invalid("exp_missing")
    if now > exp + leeway:
        raise TokenRejected("TOKEN_EXPIRED", "The ID token has expired", "expired")
    iat = claims.get("iat")
    if isinstance(iat, (int, float)) and iat > now + leeway:
        raise _invalid("issued_in_future")
    nbf = claims.get("nbf")
    if isinstance(nbf, (int, float)) and nbf > now + leeway:
        raise _invalid("not_yet_valid")
    uid = claims.get(s.user_id_claim) or claims.get("sub")
    if not isinstance(uid, str) or not uid:
        raise _invalid("subject")
    auth_time = claims.get("auth_time")
    return Identity(
        user_id=uid,
        email=claims.get("email") if isinstance(claims.get("email"), str) else None,
        auth_time=int(auth_time) if isinstance(auth_time, (int, float)) else None,
        issued_at=int(iat) if isinstance(iat, (int, float)) else None,
        claims=claims,
    )
