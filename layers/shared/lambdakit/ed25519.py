"""Ed25519 (RFC 8032) in pure Python, and ``EdDSA``, a PyJWT ``Algorithm`` that needs no ``cryptography``.

Why (docs/platform.md, "Layers"): no function ships ``cryptography``; PyJWT's own ``OKPAlgorithm``
needs it. Internships signs its Open Badges credentials (one signature per certificate issued, one
per status-list publication) and verifies presented ones, so Ed25519 is done here, by RFC 8032
section 5.1 (PureEdDSA over edwards25519, SHA-512): points in extended twisted-Edwards coordinates
(section 5.1.4), encoding/decoding by 5.1.2/5.1.3 (a non-canonical y, x = 0 with the sign bit set,
or a point off the curve is refused), verification by the cofactorless equation [S]B = R + [k]A
with S < L checked (5.1.7), the scalar reduced mod L. Timing: signing is one fixed-base
multiplication (a few ms), verification two; this module does not claim constant-time scalar
multiplication — the private key lives in one Lambda's memory, and the signatures it makes are of
data the service itself chose (no chosen-message oracle over a network timing channel worth
the name), a trade-off recorded in docs/platform.md. Differential tests against ``cryptography``
(a dev dependency) and the RFC 8032 test vectors: tests/internships/r12_credentials/test_ed25519.py.

Keys: ``SigningKey.from_seed(32 bytes)`` and ``VerifyingKey(32 bytes)``; JWK form OKP/Ed25519
(RFC 8037). Use it through ``eddsa_jwt()`` (a PyJWT instance whose only algorithm is EdDSA).
"""
from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from typing import Any

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, P - 2, P)) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)


class BadSignature(ValueError):
    pass


def _recover_x(y: int, sign: int) -> int | None:
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P:
        return None
    if (x & 1) != sign:
        x = P - x
    return x


_GY = 4 * pow(5, P - 2, P) % P
_GX = _recover_x(_GY, 0)
assert _GX is not None
G = (_GX, _GY, 1, _GX * _GY % P)
ZERO = (0, 1, 1, 0)


def _add(p: tuple, q: tuple) -> tuple:
    a = (p[1] - p[0]) * (q[1] - q[0]) % P
    b = (p[1] + p[0]) * (q[1] + q[0]) % P
    c = 2 * p[3] * q[3] * D % P
    d = 2 * p[2] * q[2] % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _mul(s: int, p: tuple) -> tuple:
    q = ZERO
    while s > 0:
        if s & 1:
            q = _add(q, p)
        p = _add(p, p)
        s >>= 1
    return q


def _equal(p: tuple, q: tuple) -> bool:
    return (p[0] * q[2] - q[0] * p[2]) % P == 0 and (p[1] * q[2] - q[1] * p[2]) % P == 0


def _encode(p: tuple) -> bytes:
    zinv = pow(p[2], P - 2, P)
    x, y = p[0] * zinv % P, p[1] * zinv % P
    return int.to_bytes(y | ((x & 1) << 255), 32, "little")


def _decode(s: bytes) -> tuple | None:
    if len(s) != 32:
        return None
    y = int.from_bytes(s, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % P)


def _h(*parts: bytes) -> int:
    return int.from_bytes(hashlib.sha512(b"".join(parts)).digest(), "little")


def _b64u(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def _unb64u(s: Any, name: str) -> bytes:
    if not isinstance(s, str):
        raise ValueError(f"JWK member {name!r} is not base64url")
    try:
        return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
    except ValueError:
        raise ValueError(f"JWK member {name!r} is not base64url") from None


@dataclass(frozen=True)
class VerifyingKey:
    public: bytes

    def verify(self, signature: bytes, message: bytes) -> None:
        if len(signature) != 64:
            raise BadSignature("signature length")
        a = _decode(self.public)
        r = _decode(signature[:32])
        if a is None or r is None:
            raise BadSignature("bad point")
        s = int.from_bytes(signature[32:], "little")
        if s >= L:
            raise BadSignature("non-canonical S")
        k = _h(signature[:32], self.public, message) % L
        if not _equal(_mul(s, G), _add(r, _mul(k, a))):
            raise BadSignature("signature mismatch")

    def jwk(self, kid: str | None = None) -> dict:
        out = {"kty": "OKP", "crv": "Ed25519", "x": _b64u(self.public)}
        return {**out, "kid": kid or self.thumbprint(), "alg": "EdDSA", "use": "sig"}

    def thumbprint(self) -> str:
        """RFC 7638 JWK thumbprint (SHA-256, members crv, kty, x in order)."""
        canon = json.dumps({"crv": "Ed25519", "kty": "OKP", "x": _b64u(self.public)}, separators=(",", ":"))
        return _b64u(hashlib.sha256(canon.encode()).digest())

    @classmethod
    def from_jwk(cls, jwk: dict) -> VerifyingKey:
        if not isinstance(jwk, dict) or jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
            raise ValueError("not an OKP Ed25519 JWK")
        if "d" in jwk:
            raise ValueError("a public JWK must not carry the private key")
        raw = _unb64u(jwk.get("x"), "x")
        if len(raw) != 32 or _decode(raw) is None:
            raise ValueError("JWK member 'x' is not an Ed25519 public key")
        return cls(raw)


@dataclass(frozen=True)
class SigningKey:
    seed: bytes
    _scalar: int
    _prefix: bytes
    verifying: VerifyingKey

    @classmethod
    def from_seed(cls, seed: bytes) -> SigningKey:
        if len(seed) != 32:
            raise ValueError("an Ed25519 seed is 32 bytes")
        h = hashlib.sha512(seed).digest()
        a = int.from_bytes(h[:32], "little")
        a &= (1 << 254) - 8
        a |= 1 << 254
        return cls(seed, a, h[32:], VerifyingKey(_encode(_mul(a, G))))

    def sign(self, message: bytes) -> bytes:
        r = _h(self._prefix, message) % L
        rs = _encode(_mul(r, G))
        k = _h(rs, self.verifying.public, message) % L
        s = (r + k * self._scalar) % L
        return rs + int.to_bytes(s, 32, "little")

    def __repr__(self) -> str:  # never print the seed
        return f"SigningKey(kid={self.verifying.thumbprint()})"


def verify(public: bytes, signature: bytes, message: bytes) -> bool:
    try:
        VerifyingKey(public).verify(signature, message)
    except BadSignature:
        return False
    return True


def _algorithm_class() -> type:
    from jwt.algorithms import Algorithm
    from jwt.exceptions import InvalidKeyError

    class EdDSA(Algorithm):
        """PyJWT algorithm ``EdDSA`` (RFC 8037) over Ed25519 with this module's keys."""

        def prepare_key(self, key: Any) -> SigningKey | VerifyingKey:
            if isinstance(key, (SigningKey, VerifyingKey)):
                return key
            if isinstance(key, dict):
                try:
                    return VerifyingKey.from_jwk(key)
                except ValueError as exc:
                    raise InvalidKeyError(str(exc)) from None
            raise InvalidKeyError("EdDSA keys are lambdakit.ed25519 keys or an OKP JWK")

        def sign(self, msg: bytes, key: Any) -> bytes:
            if not isinstance(key, SigningKey):
                raise InvalidKeyError("signing needs a SigningKey")
            return key.sign(msg)

        def verify(self, msg: bytes, key: Any, sig: bytes) -> bool:
            vk = key.verifying if isinstance(key, SigningKey) else key
            if not isinstance(vk, VerifyingKey):
                return False
            try:
                vk.verify(sig, msg)
            except BadSignature:
                return False
            return True

        @staticmethod
        def to_jwk(key_obj: Any, as_dict: bool = False) -> Any:
            vk = key_obj.verifying if isinstance(key_obj, SigningKey) else key_obj
            jwk = {"kty": "OKP", "crv": "Ed25519", "x": _b64u(vk.public)}
            return jwk if as_dict else json.dumps(jwk)

        @staticmethod
        def from_jwk(jwk: str | dict) -> Any:
            obj = json.loads(jwk) if isinstance(jwk, str) else jwk
            try:
                return VerifyingKey.from_jwk(obj)
            except ValueError as exc:
                raise InvalidKeyError(str(exc)) from None

    return EdDSA


def eddsa_jwt() -> Any:
    """A ``jwt.PyJWT`` (and its ``PyJWS``) whose only algorithm is this module's EdDSA: any other
    ``alg`` in a presented token (``none``, ``HS256`` with the public key as secret) is refused."""
    import jwt

    class EdDSAJwt(jwt.PyJWT):
        def __init__(self) -> None:
            super().__init__()
            jws = self._jws
            for alg in jws.get_algorithms():
                jws.unregister_algorithm(alg)
            jws.register_algorithm("EdDSA", _algorithm_class()())

    return EdDSAJwt()
