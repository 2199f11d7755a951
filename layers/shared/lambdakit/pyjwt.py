"""PyJWT, imported the way every service should import it: ``from lambdakit.pyjwt import jwt``.

* ``jwt``: PyJWT itself, for HS256 (internships' session tokens) and for reading a token's header
  and claims before its signature is checked.
* ``rs256_decoder``: the verifier of RS256 ID tokens (exams: Cognito; internships: Google), a
  ``jwt.PyJWT`` whose only algorithm is ``lambdakit.rs256.RS256`` (pure Python, RFC 8017;
  keys: ``lambdakit.rs256.RSAPublicKey``). No function ships ``cryptography`` (docs/platform.md,
  "Layers"), and the same verifier runs in the tests, where ``cryptography`` is installed (a dev
  dependency: tests and the local stand-ins SIGN RS256 with PyJWT's global ``jwt.encode``, which
  is left untouched). Any other ``alg`` (``none``, ``HS256`` with the public key as secret, ...)
  is unknown to it: ``InvalidAlgorithmError``.
"""
from __future__ import annotations

from typing import Any

import jwt

from .rs256 import RS256


class RS256Decoder(jwt.PyJWT):
    """A ``jwt.PyJWT`` that knows one algorithm, ``lambdakit.rs256.RS256``; ``decode`` takes its
    keys (``RSAPublicKey``, or a JWK)."""

    def __init__(self) -> None:
        super().__init__()
        # PyJWT keeps the PyJWS an instance signs and verifies with in the private attribute ``_jws``
        # (2.x; its own global instance is wired the same way). tests/platform/test_rs256.py fails if
        # that changes. Only this instance's algorithms change: PyJWT's global ones stay as they are.
        jws = self._jws
        for alg in jws.get_algorithms():
            jws.unregister_algorithm(alg)
        jws.register_algorithm("RS256", RS256())

    def decode(self, jwt: str | bytes, key: Any = "", *args: Any, **kwargs: Any) -> Any:
        return super().decode(jwt, key, *args, **kwargs)


rs256_decoder = RS256Decoder()

__all__ = ["jwt", "rs256_decoder"]
