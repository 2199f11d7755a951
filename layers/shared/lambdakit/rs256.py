"""RS256 signature verification in pure Python: a PyJWT ``Algorithm`` that needs no ``cryptography``.

Why (docs/platform.md, "Layers"): the only asymmetric thing our functions do is VERIFY RS256
(RSASSA-PKCS1-v1_5 with SHA-256) signatures of ID tokens (exams: Cognito; internships: Google
sign-in). With ``cryptography`` importable, PyJWT loads it and every asymmetric module at import
(~12 ms of a cold start) and it needs a native per-platform layer. Verification is one modular
exponentiation and a byte comparison, so it is done here, by RFC 8017 section 8.2.2
(RSASSA-PKCS1-V1_5-VERIFY) in its encode-and-compare form: the expected encoded message is BUILT
from the message's SHA-256 (EMSA-PKCS1-v1_5, section 9.2) and compared in constant time with the
one the signature opens to; the opened block is never parsed, so the Bleichenbacher'06 family of
lenient-parser forgeries (other DigestInfo, garbage after the hash, short padding) has nothing to
get past. Differential tests against ``cryptography`` (which stays a dev dependency: tests and the
local stand-ins sign RS256 tokens with it): tests/platform/test_rs256.py.

Scope, deliberately small: public keys only (a JWK with private members is refused), modulus of
2048 to 8192 bits, public exponent 65537 (what Cognito and Google publish: ``AQAB``). ``sign``
raises ``NotImplementedError``: product code never signs RS256.

Use it through ``lambdakit.pyjwt.rs256_decoder`` (a PyJWT instance whose only algorithm is this
one), never by registering it on PyJWT's global instance.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from dataclasses import dataclass, field
from typing import Any, NoReturn

from jwt.algorithms import Algorithm
from jwt.exceptions import InvalidKeyError

MIN_BITS = 2048
MAX_BITS = 8192
EXPONENT = 65537
#: DER of ``DigestInfo ::= SEQUENCE { SEQUENCE { id-sha256, NULL }, OCTET STRING (32 bytes) }`` up to the
#: hash itself (RFC 8017 section 9.2, note 1).
SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")
#: JWK members of an RSA private key (RFC 7518 section 6.3.2): a key carrying any of them is refused.
PRIVATE_MEMBERS = ("d", "p", "q", "dp", "dq", "qi", "oth")

__all__ = ["RS256", "InvalidKeyError", "RSAPublicKey", "encoded_message", "signing_keys", "verify"]

_B64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")


def _b64url_uint(value: Any, name: str) -> int:
    if not isinstance(value, str) or not _B64URL.fullmatch(value):
        raise InvalidKeyError(f"RSA JWK member {name!r} is not base64url")
    raw = value.rstrip("=")
    try:
        return int.from_bytes(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)), "big")
    except ValueError:  # binascii.Error: a length no base64 text has
        raise InvalidKeyError(f"RSA JWK member {name!r} is not base64url") from None


def _b64url(n: int) -> str:
    return base64.urlsafe_b64encode(n.to_bytes((n.bit_length() + 7) // 8 or 1, "big")).decode().rstrip("=")


@dataclass(frozen=True)
class RSAPublicKey:
    """An RSA public key fit for RS256 verification: ``n`` 2048-8192 bits (odd), ``e`` 65537."""

    n: int = field(repr=False)
    e: int = EXPONENT

    def __post_init__(self) -> None:
        if type(self.n) is not int or type(self.e) is not int:
            raise InvalidKeyError("RSA key members must be integers")
        if self.e != EXPONENT:
            raise InvalidKeyError("RSA public exponent must be 65537")
        if not MIN_BITS <= self.n.bit_length() <= MAX_BITS or self.n % 2 == 0:
            raise InvalidKeyError(f"RSA modulus must be an odd {MIN_BITS}-{MAX_BITS} bit number")

    @property
    def size(self) -> int:
        """k: the modulus's length in bytes (and every signature's)."""
        return (self.n.bit_length() + 7) // 8

    @property
    def bits(self) -> int:
        return self.n.bit_length()

    @classmethod
    def from_jwk(cls, jwk: str | bytes | dict) -> RSAPublicKey:
        """The key of an RSA public JWK (RFC 7518 section 6.3.1: ``kty`` RSA, base64url ``n`` and
        ``e``); ``alg``, when present, must be RS256. ``InvalidKeyError`` for anything else."""
        if isinstance(jwk, (str, bytes)):
            try:
                jwk = json.loads(jwk)
            except ValueError:
                raise InvalidKeyError("not a JWK (invalid JSON)") from None
        if not isinstance(jwk, dict):
            raise InvalidKeyError("not a JWK (not an object)")
        if jwk.get("kty") != "RSA":
            raise InvalidKeyError("not an RSA JWK")
        if any(m in jwk for m in PRIVATE_MEMBERS):
            raise InvalidKeyError("an RSA JWK with private key members: only public keys are accepted")
        if jwk.get("alg", "RS256") != "RS256":
            raise InvalidKeyError("the JWK is for another algorithm")
        return cls(n=_b64url_uint(jwk.get("n"), "n"), e=_b64url_uint(jwk.get("e"), "e"))

    def to_jwk(self) -> dict[str, str]:
        return {"kty": "RSA", "n": _b64url(self.n), "e": _b64url(self.e)}


def signing_keys(jwks: Any) -> list[tuple[Any, RSAPublicKey, dict]]:
    """The members of a JWK set (``{"keys": [...]}``) usable for RS256 verification, in order:
    ``(kid, key, jwk)`` for each object whose ``use`` is ``sig`` or absent and that
    ``RSAPublicKey.from_jwk`` accepts; anything else is skipped. ``kid`` as the member has it
    (possibly ``None``): what a missing or repeated one means is the caller's rule."""
    members = jwks.get("keys") if isinstance(jwks, dict) else None
    out: list[tuple[Any, RSAPublicKey, dict]] = []
    for k in members if isinstance(members, list) else []:
        if not isinstance(k, dict) or k.get("use", "sig") != "sig":
            continue
        try:
            out.append((k.get("kid"), RSAPublicKey.from_jwk(k), k))
        except InvalidKeyError:  # not a key we verify with
            continue
    return out


def encoded_message(msg: bytes, k: int) -> bytes:
    """EMSA-PKCS1-v1_5 (RFC 8017 section 9.2) of ``msg`` with SHA-256, ``k`` bytes long:
    ``00 01 FF..FF 00 DigestInfo(sha256(msg))``."""
    t = SHA256_DIGEST_INFO + hashlib.sha256(msg).digest()
    if k < len(t) + 11:
        raise ValueError("intended encoded message length too short")
    return b"\x00\x01" + b"\xff" * (k - 3 - len(t)) + b"\x00" + t


def verify(msg: bytes, key: RSAPublicKey, sig: bytes) -> bool:
    """RSASSA-PKCS1-V1_5-VERIFY (RFC 8017 section 8.2.2) with SHA-256: whether ``sig`` is ``key``'s
    signature of ``msg``."""
    k = key.size
    if len(sig) != k:  # step 1: length checking
        return False
    s = int.from_bytes(sig, "big")
    if s >= key.n:  # step 2 (RSAVP1): signature representative out of range
        return False
    em = pow(s, key.e, key.n).to_bytes(k, "big")  # steps 2b, 2c (I2OSP cannot fail: m < n < 256^k)
    return hmac.compare_digest(em, encoded_message(msg, k))  # steps 3, 4: encode and compare


class RS256(Algorithm):
    """PyJWT's interface for RS256, verification only (``lambdakit.pyjwt.rs256_decoder``)."""

    hash_alg = hashlib.sha256  # Algorithm.compute_hash_digest (at_hash and the like)

    def prepare_key(self, key: Any) -> RSAPublicKey:
        if isinstance(key, RSAPublicKey):
            return key
        if isinstance(key, (dict, str, bytes)):  # a JWK (object or its JSON); PEM and the like are refused
            return RSAPublicKey.from_jwk(key)
        raise InvalidKeyError(f"RS256 verification needs an RSAPublicKey or a JWK, not {type(key).__name__}")

    def sign(self, msg: bytes, key: Any) -> NoReturn:
        raise NotImplementedError("RS256 here verifies only: product code never signs RS256")

    def verify(self, msg: bytes, key: Any, sig: bytes) -> bool:
        return verify(bytes(msg), self.prepare_key(key), bytes(sig))

    @staticmethod
    def to_jwk(key_obj: Any, as_dict: bool = False) -> Any:
        if not isinstance(key_obj, RSAPublicKey):
            raise InvalidKeyError("not an RSAPublicKey")
        jwk = key_obj.to_jwk()
        return jwk if as_dict else json.dumps(jwk)

    @staticmethod
    def from_jwk(jwk: str | dict) -> RSAPublicKey:
        return RSAPublicKey.from_jwk(jwk)
