"""PyJWT, imported the way every service should import it: ``from lambdakit.pyjwt import jwt``.

PyJWT's ``jwt.algorithms`` imports ``cryptography.x509`` eagerly; it is deferred here
(``lambdakit.deferred``) so a cold start pays for it only when a certificate is actually read.
Where cryptography is not installed (functions that only use HS256 get no cryptography layer),
PyJWT runs without it and HS256 is all it offers.
"""
from __future__ import annotations

from .deferred import defer

defer("cryptography.x509")

import jwt  # noqa: E402

__all__ = ["jwt"]
