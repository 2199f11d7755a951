"""Security primitives: constant-time comparison, HMAC signatures, secret hashing,
random tokens, password hashing (scrypt at OWASP parameters)."""
from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets


def constant_time_equals(a: str | bytes | None, b: str | bytes | None) -> bool:
    if a is None or b is None:
        return False
    if isinstance(a, str):
        a = a.encode("utf-8")
    if isinstance(b, str):
        b = b.encode("utf-8")
    return hmac.compare_digest(a, b)


def hmac_sha256_hex(key: str | bytes, message: str | bytes) -> str:
    if isinstance(key, str):
        key = key.encode("utf-8")
    if isinstance(message, str):
        message = message.encode("utf-8")
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def sha256_hex(value: str | bytes) -> str:
    if isinstance(value, str):
        value = value.encode("utf-8")
    return hashlib.sha256(value).hexdigest()


def random_token(nbytes: int = 32) -> str:
    """URL-safe random token with ``nbytes`` of entropy."""
    return secrets.token_urlsafe(nbytes)


# ---- signed compact tokens (tracking links, unsubscribe links, OAuth state cookies)
def sign_token(secret: str, payload: str) -> str:
    """``payload.signature`` where signature is base64url(HMAC-SHA256(secret, payload))[:32]."""
    mac = hmac.new(secret.encode(), payload.encode(), hashlib.sha256).digest()
    return payload + "." + base64.urlsafe_b64encode(mac).decode().rstrip("=")


def verify_token(secret: str, token: str) -> str | None:
    """Return the payload of a token made by ``sign_token`` or ``None`` if the signature is wrong."""
    if not token or "." not in token:
        return None
    payload, _, sig = token.rpartition(".")
    expected = sign_token(secret, payload).rpartition(".")[2]
    return payload if constant_time_equals(sig, expected) else None


# ---- passwords: scrypt N=2^17, r=8, p=1 (OWASP), encoded as scrypt$N$r$p$salt$hash
_N, _R, _P, _DKLEN = 2**17, 8, 1, 32


def hash_password(password: str, *, n: int = _N) -> str:
    salt = os.urandom(16)
    dk = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=_R, p=_P, maxmem=256 * 1024 * 1024, dklen=_DKLEN)
    return "scrypt${}${}${}${}${}".format(n, _R, _P, base64.b64encode(salt).decode(), base64.b64encode(dk).decode())


def verify_password(password: str, encoded: str | None) -> bool:
    """Constant-time verification. With ``encoded=None`` a dummy hash is computed so that
    unknown users take the same time as wrong passwords."""
    if not encoded:
        encoded = _DUMMY_HASH
        password = password + "\x00unknown"
    try:
        scheme, n, r, p, salt, dk = encoded.split("$")
        if scheme != "scrypt":
            return False
        got = hashlib.scrypt(password.encode("utf-8"), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p),
                             maxmem=256 * 1024 * 1024, dklen=len(base64.b64decode(dk)))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, base64.b64decode(dk)) and encoded is not _DUMMY_HASH


_DUMMY_HASH = "scrypt$131072$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
