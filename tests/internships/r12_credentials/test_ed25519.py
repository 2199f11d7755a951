"""lambdakit.ed25519 (pure-Python Ed25519, RFC 8032) against the RFC's test vectors and, differentially,
against cryptography (OpenSSL), which stays a dev dependency; and its PyJWT algorithm refusing others."""
from __future__ import annotations

import os

import pytest
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lambdakit import ed25519

# RFC 8032 section 7.1, TEST 1, 2 and 3: (secret key, public key, message, signature)
VECTORS = [
    ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
    ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
]


@pytest.mark.parametrize("sk, pk, msg, sig", VECTORS)
def test_rfc8032_vectors(sk, pk, msg, sig):
    key = ed25519.SigningKey.from_seed(bytes.fromhex(sk))
    assert key.verifying.public.hex() == pk
    assert key.sign(bytes.fromhex(msg)).hex() == sig
    assert ed25519.verify(bytes.fromhex(pk), bytes.fromhex(sig), bytes.fromhex(msg))


def test_differential_against_openssl():
    for i in range(12):
        seed, msg = os.urandom(32), os.urandom(i * 13)
        ours, theirs = ed25519.SigningKey.from_seed(seed), Ed25519PrivateKey.from_private_bytes(seed)
        assert ours.verifying.public == theirs.public_key().public_bytes(ser.Encoding.Raw, ser.PublicFormat.Raw)
        assert ours.sign(msg) == theirs.sign(msg)
        theirs.public_key().verify(ours.sign(msg), msg)  # raises on mismatch
        assert ed25519.verify(ours.verifying.public, theirs.sign(msg), msg)


def test_refuses_tampered_and_malleable_signatures():
    key = ed25519.SigningKey.from_seed(bytes(range(32)))
    sig = key.sign(b"payload")
    for i in (0, 31, 32, 63):
        bad = bytearray(sig)
        bad[i] ^= 0x01
        assert not ed25519.verify(key.verifying.public, bytes(bad), b"payload")
    assert not ed25519.verify(key.verifying.public, sig, b"payloae")
    # S + L: the same signature made malleable; RFC 8032 5.1.7 requires S < L
    s = int.from_bytes(sig[32:], "little") + ed25519.L
    assert not ed25519.verify(key.verifying.public, sig[:32] + s.to_bytes(32, "little"), b"payload")
    assert not ed25519.verify(key.verifying.public, sig[:63], b"payload")
    # a non-canonical y (>= p) is not a point
    assert not ed25519.verify((2**255 - 1).to_bytes(32, "little"), sig, b"payload")


def test_pyjwt_algorithm_only_eddsa():
    import jwt as pyjwt

    key = ed25519.SigningKey.from_seed(os.urandom(32))
    j = ed25519.eddsa_jwt()
    tok = j.encode({"a": 1}, key, algorithm="EdDSA")
    assert j.decode(tok, key.verifying, algorithms=["EdDSA"]) == {"a": 1}
    assert j.decode(tok, key.verifying.jwk(), algorithms=["EdDSA"]) == {"a": 1}
    hs = pyjwt.encode({"a": 1}, "s" * 32, algorithm="HS256")
    with pytest.raises(pyjwt.exceptions.InvalidAlgorithmError):
        j.decode(hs, key.verifying, algorithms=["HS256"])
    with pytest.raises(ValueError):
        ed25519.VerifyingKey.from_jwk({**key.verifying.jwk(), "d": "x"})
