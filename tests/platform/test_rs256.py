"""``lambdakit.rs256``: pure-Python RS256 verification, differential-tested against ``cryptography``
(a dev dependency; no function ships it: docs/platform.md, "Layers"), and ``lambdakit.pyjwt.rs256_decoder``.

* Same answer as cryptography's ``RSAPublicKey.verify`` (PKCS#1 v1.5, SHA-256) for many random
  messages under 2048/3072/4096-bit keys, on valid signatures and on mutated ones.
* Refused: a flipped bit anywhere (signature, message, token header), another key, a signature
  one byte short or long, s >= n, s = 0, keys with e != 65537, moduli under 2048 bits, JWKs
  with private members, and PKCS#1 v1.5 blocks a lenient parser accepts (SHA-1 DigestInfo,
  garbage after the hash: Bleichenbacher'06), "signed" with the real private key by raw
  ``pow(m, d, n)``.
* The decoder knows RS256 only ("none" and HS256-with-the-public-key confusion are refused) and
  leaves PyJWT's global instance as it was: tests and the local stand-ins still SIGN RS256 with it.
"""
from __future__ import annotations

import base64
import hashlib
import json
import random
from functools import cache

import jwt as pyjwt
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from lambdakit import rs256
from lambdakit.pyjwt import jwt, rs256_decoder
from lambdakit.rs256 import RS256, InvalidKeyError, RSAPublicKey

SIZES = (2048, 3072, 4096)
SHA1_DIGEST_INFO = bytes.fromhex("3021300906052b0e03021a05000414")


@cache
def private_key(bits: int, n: int = 0) -> rsa.RSAPrivateKey:
    """One key per (size, index), generated once per test process."""
    return rsa.generate_private_key(public_exponent=65537, key_size=bits)


def public_jwk(key: rsa.RSAPrivateKey, **extra) -> dict:
    jwk = json.loads(pyjwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    return {**jwk, **extra}


def ours(key: rsa.RSAPrivateKey) -> RSAPublicKey:
    return RSAPublicKey.from_jwk(public_jwk(key))


def theirs_verify(key: rsa.RSAPrivateKey, msg: bytes, sig: bytes) -> bool:
    try:
        key.public_key().verify(sig, msg, padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        return False
    return True


def sign(key: rsa.RSAPrivateKey, msg: bytes) -> bytes:
    return key.sign(msg, padding.PKCS1v15(), hashes.SHA256())


def raw_sign(key: rsa.RSAPrivateKey, em: bytes) -> bytes:
    """The RSA private operation on an arbitrary encoded block (what a forger hopes a lenient
    verifier accepts): ``pow(m, d, n)``."""
    nums = key.private_numbers()
    k = (nums.public_numbers.n.bit_length() + 7) // 8
    assert len(em) == k
    return pow(int.from_bytes(em, "big"), nums.d, nums.public_numbers.n).to_bytes(k, "big")


def flip(data: bytes, bit: int) -> bytes:
    b = bytearray(data)
    b[bit // 8] ^= 1 << (bit % 8)
    return bytes(b)


# ------------------------------------------------------------------ differential
@pytest.mark.parametrize("bits", SIZES)
def test_same_answer_as_cryptography_on_random_messages(bits):
    rng = random.Random(bits)
    key, other = private_key(bits), private_key(bits, 1)
    pub = ours(key)
    assert pub.bits == bits and pub.size == bits // 8
    for i in range(60 if bits == 2048 else 25):
        msg = rng.randbytes(rng.randrange(0, 600))
        sig = sign(key, msg)
        assert rs256.verify(msg, pub, sig) is True is theirs_verify(key, msg, sig)
        cases = [
            (flip(msg, rng.randrange(len(msg) * 8)) if msg else b"x", sig),  # the message altered
            (msg, flip(sig, rng.randrange(len(sig) * 8))),  # one bit of the signature
            (msg, sig[:-1]), (msg, sig + b"\x00"), (msg, b"\x00" + sig),  # one byte short / long
            (msg, sign(other, msg)),  # another key's signature
            (msg, rng.randbytes(len(sig))),  # noise
        ]
        for m, s in cases:
            assert rs256.verify(m, pub, s) is False is theirs_verify(key, m, s), (i, m[:16], s[:16])


@pytest.mark.parametrize("bits", SIZES)
def test_encoded_message_is_what_cryptography_signs(bits):
    """EMSA-PKCS1-v1_5 built here, opened from a cryptography signature with the public key."""
    key = private_key(bits)
    n = key.public_key().public_numbers().n
    k = (n.bit_length() + 7) // 8
    for msg in (b"", b"a", b"header.payload", bytes(range(256)) * 3):
        opened = pow(int.from_bytes(sign(key, msg), "big"), 65537, n).to_bytes(k, "big")
        assert opened == rs256.encoded_message(msg, k)


@pytest.mark.parametrize("bits", SIZES)
def test_tokens_signed_by_pyjwt_with_cryptography_verify(bits):
    key = private_key(bits)
    claims = {"sub": "user-1", "n": bits, "email": "ü@example.com"}
    tok = pyjwt.encode(claims, key, algorithm="RS256", headers={"kid": "k1"})
    for k in (ours(key), public_jwk(key), json.dumps(public_jwk(key))):  # our key, a JWK dict, its JSON
        assert rs256_decoder.decode(tok, k, algorithms=["RS256"]) == claims
    # and PyJWT's own verifier agrees (the differential at the token level)
    assert pyjwt.decode(tok, key.public_key(), algorithms=["RS256"]) == claims


# ------------------------------------------------------------------ refusals
@pytest.fixture(scope="module")
def token_and_key():
    key = private_key(2048)
    return pyjwt.encode({"sub": "u", "role": "admin"}, key, algorithm="RS256", headers={"kid": "k1"}), key


def _decode(tok: str, key) -> dict:
    return rs256_decoder.decode(tok, key, algorithms=["RS256"])


def test_a_flipped_bit_in_any_part_of_the_token_is_refused(token_and_key):
    tok, key = token_and_key
    pub = ours(key)
    assert _decode(tok, pub)["sub"] == "u"
    header, payload, sig = tok.split(".")
    raw = base64.urlsafe_b64decode(sig + "==")
    for bit in (0, 7, 1000, len(raw) * 8 - 1):
        forged = ".".join([header, payload, base64.urlsafe_b64encode(flip(raw, bit)).decode().rstrip("=")])
        with pytest.raises(jwt.InvalidSignatureError):
            _decode(forged, pub)
    # the claims: admin -> a different role, same signature
    other_payload = base64.urlsafe_b64encode(json.dumps({"sub": "u", "role": "super"}).encode()).decode().rstrip("=")
    with pytest.raises(jwt.InvalidSignatureError):
        _decode(".".join([header, other_payload, sig]), pub)
    # the header: same alg, another kid (signed input changes)
    other_header = base64.urlsafe_b64encode(json.dumps({"alg": "RS256", "kid": "k2", "typ": "JWT"}).encode())
    with pytest.raises(jwt.InvalidSignatureError):
        _decode(".".join([other_header.decode().rstrip("="), payload, sig]), pub)


def test_another_key_is_refused(token_and_key):
    tok, _ = token_and_key
    with pytest.raises(jwt.InvalidSignatureError):
        _decode(tok, ours(private_key(2048, 1)))


@pytest.mark.parametrize("bits", SIZES)
def test_signature_length_and_range(bits):
    key = private_key(bits)
    pub = ours(key)
    msg = b"header.payload"
    sig = sign(key, msg)
    k = pub.size
    n = pub.n
    for bad in (sig[:-1], sig[1:], sig + b"\x00", b"\x00" + sig, b"", bytes(k - 1), bytes(k + 1)):
        assert not rs256.verify(msg, pub, bad)
    # s >= n: n itself, n + s (same residue as s: a verifier reducing mod n would accept it)
    s = int.from_bytes(sig, "big")
    for big in (n, n + 1, (2 ** (8 * k)) - 1, n + s):
        if big < 2 ** (8 * k):
            assert not rs256.verify(msg, pub, big.to_bytes(k, "big"))
            assert not theirs_verify(key, msg, big.to_bytes(k, "big"))
    assert not rs256.verify(msg, pub, bytes(k))  # s = 0
    assert not rs256.verify(msg, pub, (1).to_bytes(k, "big"))  # s = 1 opens to 1
    assert not rs256.verify(msg, pub, (n - 1).to_bytes(k, "big"))  # s = n - 1 opens to n - 1


@pytest.mark.parametrize("bits", SIZES)
def test_lenient_parser_forgeries_are_refused(bits):
    """Blocks a parser of the opened signature might accept, each "signed" with the real private
    key (``pow(m, d, n)``): the verifier builds the one block it accepts and compares."""
    key = private_key(bits)
    pub = ours(key)
    k = pub.size
    msg = b"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1In0"
    h256, h1 = hashlib.sha256(msg).digest(), hashlib.sha1(msg).digest()
    good = rs256.encoded_message(msg, k)
    assert rs256.verify(msg, pub, raw_sign(key, good))  # the raw operation itself is right

    def block(t: bytes, *, ps: int | None = None, tail: bytes = b"", head: bytes = b"\x00\x01") -> bytes:
        ps = k - 3 - len(t) - len(tail) if ps is None else ps
        out = head + b"\xff" * ps + b"\x00" + t + tail
        return out + b"\x00" * (k - len(out))  # keep the length (only relevant for a short PS)

    forgeries = {
        "sha1 DigestInfo": block(SHA1_DIGEST_INFO + h1),
        "garbage after the hash": block(rs256.SHA256_DIGEST_INFO + h256, ps=8,
                                        tail=bytes(i % 256 for i in range(k - 3 - 8 - 51))),
        "short padding, garbage after": block(rs256.SHA256_DIGEST_INFO + h256, ps=8, tail=b"\x13" * (k - 62)),
        "DigestInfo without the NULL": block(bytes.fromhex("302f300b0609608648016503040201") + b"\x04\x20" + h256),
        "block type 2": block(rs256.SHA256_DIGEST_INFO + h256, head=b"\x00\x02"),
        "block type 0": block(rs256.SHA256_DIGEST_INFO + h256, head=b"\x00\x00"),
        "no leading zero": b"\x01\x01" + good[2:],
        "hash of another message": rs256.encoded_message(msg + b"!", k),
        "padding byte not ff": good[:5] + b"\xfe" + good[6:],
    }
    for name, em in forgeries.items():
        assert len(em) == k, name
        sig = raw_sign(key, em)
        assert not rs256.verify(msg, pub, sig), name
        assert not theirs_verify(key, msg, sig), name  # cryptography refuses them too


def test_alg_none_and_hs256_with_the_public_key_are_refused(token_and_key):
    """Algorithm confusion: the decoder knows RS256 only, whatever ``algorithms=`` a caller passes."""
    _, key = token_and_key
    jwk = public_jwk(key)
    pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    unsigned = pyjwt.encode({"sub": "admin"}, None, algorithm="none")
    assert jwt.get_unverified_header(unsigned)["alg"] == "none"
    for algs in (["RS256"], ["none", "RS256"], ["none"]):
        with pytest.raises(jwt.InvalidAlgorithmError):
            rs256_decoder.decode(unsigned, ours(key), algorithms=algs)
    hs = jwt.api_jws.PyJWS()  # an HMAC "signature" keyed with the public key's JSON and its PEM
    for secret in (json.dumps(jwk).encode(), pem):
        sig_input = (base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=") + "."
                     + base64.urlsafe_b64encode(b'{"sub":"admin"}').decode().rstrip("="))
        mac = pyjwt.algorithms.HMACAlgorithm(hashlib.sha256).sign(sig_input.encode(), secret)
        forged = sig_input + "." + base64.urlsafe_b64encode(mac).decode().rstrip("=")
        for algs in (["RS256"], ["HS256", "RS256"]):
            with pytest.raises(jwt.InvalidAlgorithmError):
                rs256_decoder.decode(forged, ours(key), algorithms=algs)
            with pytest.raises(jwt.InvalidAlgorithmError):
                rs256_decoder.decode(forged, secret, algorithms=algs)
    assert "HS256" in hs.get_algorithms()  # (PyJWT's own instance still has it)
    # an RS256 token with the key as PEM (PyJWT's RSA key format) is refused as a key, not verified
    tok = pyjwt.encode({"sub": "u"}, key, algorithm="RS256")
    with pytest.raises(jwt.InvalidKeyError):
        rs256_decoder.decode(tok, pem, algorithms=["RS256"])
    with pytest.raises(jwt.InvalidKeyError):
        rs256_decoder.decode(tok, key.public_key(), algorithms=["RS256"])


# ------------------------------------------------------------------ keys
def _jwk_of(n: int, e: int, **extra) -> dict:
    def b64(i: int) -> str:
        return base64.urlsafe_b64encode(i.to_bytes((i.bit_length() + 7) // 8, "big")).decode().rstrip("=")

    return {"kty": "RSA", "n": b64(n), "e": b64(e), **extra}


def test_key_rules():
    key = private_key(2048)
    n = key.public_key().public_numbers().n
    assert RSAPublicKey.from_jwk(_jwk_of(n, 65537)) == RSAPublicKey(n, 65537)
    assert RSAPublicKey.from_jwk(public_jwk(key, kid="a", use="sig", alg="RS256")).n == n
    assert RSAPublicKey.from_jwk(json.dumps(_jwk_of(n, 65537))).n == n
    padded = _jwk_of(n, 65537)
    padded["n"] += "=" * (-len(padded["n"]) % 4)
    assert RSAPublicKey.from_jwk(padded).n == n
    small = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    bad = {
        "e = 3": _jwk_of(n, 3),
        "e = 1": _jwk_of(n, 1),
        "e = 65539": _jwk_of(n, 65539),
        "1024-bit n": public_jwk(small),
        "2047-bit n": _jwk_of(n >> 1 | 1, 65537),
        "8200-bit n": _jwk_of((1 << 8199) | 1, 65537),
        "even n": _jwk_of(n + 1, 65537),
        "private members": public_jwk(key) | json.loads(pyjwt.algorithms.RSAAlgorithm.to_jwk(key)),
        "only d": public_jwk(key, d="AQAB"),
        "another kty": {**_jwk_of(n, 65537), "kty": "EC"},
        "another alg": public_jwk(key, alg="RS512"),
        "n not base64url": {**_jwk_of(n, 65537), "n": "a+b/" * 100},
        "n impossible length": {**_jwk_of(n, 65537), "n": "A" * 345},
        "n missing": {"kty": "RSA", "e": "AQAB"},
        "e a number": {**_jwk_of(n, 65537), "e": 65537},
        "not JSON": "{kty",
        "a list": [1, 2],
    }
    for name, jwk in bad.items():
        with pytest.raises(InvalidKeyError):
            RSAPublicKey.from_jwk(jwk)  # type: ignore[arg-type]
        with pytest.raises(InvalidKeyError):
            RS256().prepare_key(jwk)
        assert name
    with pytest.raises(InvalidKeyError):
        RSAPublicKey(n, 3)
    with pytest.raises(InvalidKeyError):
        RSAPublicKey(True, 65537)  # type: ignore[arg-type]
    with pytest.raises(InvalidKeyError):
        RS256().prepare_key(key.public_key())  # a cryptography key object: not ours


def test_algorithm_interface():
    key = private_key(2048)
    pub = ours(key)
    alg = RS256()
    assert alg.prepare_key(pub) is pub
    with pytest.raises(NotImplementedError):
        alg.sign(b"m", pub)
    assert RS256.from_jwk(RS256.to_jwk(pub)) == pub
    assert RS256.to_jwk(pub, as_dict=True) == {k: public_jwk(key)[k] for k in ("kty", "n", "e")}
    assert alg.compute_hash_digest(b"abc") == hashlib.sha256(b"abc").digest()
    assert alg.check_key_length(pub) is None
    assert "n=" not in repr(pub)  # no 600-digit numbers in logs


# ------------------------------------------------------------------ the decoder and PyJWT's global state
def test_the_decoder_has_rs256_only_and_pyjwt_keeps_its_own():
    """``rs256_decoder`` uses PyJWT's private ``PyJWT._jws`` (lambdakit/pyjwt.py): this fails if
    PyJWT changes that, rather than letting the decoder fall back to PyJWT's algorithms."""
    assert isinstance(rs256_decoder._jws, jwt.api_jws.PyJWS)
    assert rs256_decoder._jws.get_algorithms() == ["RS256"]
    assert type(rs256_decoder._jws.get_algorithm_by_name("RS256")) is RS256
    fresh = jwt.PyJWT()
    assert isinstance(fresh._jws, jwt.api_jws.PyJWS) and fresh._jws is not rs256_decoder._jws
    # PyJWT's global instance is untouched: cryptography's RSA (tests and stand-ins sign with it)
    glob = jwt.api_jws._jws_global_obj
    assert type(glob.get_algorithm_by_name("RS256")) is pyjwt.algorithms.RSAAlgorithm
    assert {"HS256", "RS256", "ES256", "none"} <= set(glob.get_algorithms())
    key = private_key(2048)
    tok = jwt.encode({"sub": "s"}, key, algorithm="RS256")
    assert jwt.decode(tok, key.public_key(), algorithms=["RS256"]) == {"sub": "s"}
    assert rs256_decoder.decode(tok, ours(key), algorithms=["RS256"]) == {"sub": "s"}


def test_signing_keys_keeps_usable_members_in_order():
    from lambdakit.rs256 import RSAPublicKey, signing_keys

    good = RSAPublicKey(n=(1 << 2047) + 1).to_jwk()
    doc = {"keys": [
        {**good, "kid": "a"},
        {**good, "kid": "enc", "use": "enc"},          # not a signing key
        {"kty": "EC", "kid": "ec", "crv": "P-256"},     # not RSA
        {**good, "kid": "d", "d": "AQAB"},              # private members
        "not an object",
        {**good},                                       # no kid: kept, the caller decides
        {**good, "kid": "a", "alg": "RS256"},           # repeated kid: kept, the caller decides
    ]}
    got = signing_keys(doc)
    assert [kid for kid, _, _ in got] == ["a", None, "a"]
    assert all(isinstance(key, RSAPublicKey) and jwk in doc["keys"] for _, key, jwk in got)
    assert signing_keys({"keys": "x"}) == [] and signing_keys(None) == [] and signing_keys({}) == []
