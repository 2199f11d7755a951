"""``oidc.signing_key``: Google's key set, fetched through ``fetch_json`` (SSRF rules) and cached,
its keys ``lambdakit.rs256.RSAPublicKey`` (no cryptography in the function: docs/platform.md,
"Layers"). The fetches are counted through a stand-in of ``fetch_json``; time through the service
clock."""
from __future__ import annotations

import json
from functools import cache

import jwt as pyjwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa

URI = "https://keys.example.test/jwks"


@cache
def _key(i: int) -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _jwk(i: int, **extra) -> dict:
    return {**json.loads(pyjwt.algorithms.RSAAlgorithm.to_jwk(_key(i).public_key())), "alg": "RS256", **extra}


def _token(i: int, kid: str | None) -> str:
    return pyjwt.encode({"sub": "s"}, _key(i), algorithm="RS256", headers={"kid": kid} if kid else None)


@pytest.fixture
def provider(monkeypatch):
    """The served key set (``provider.keys``, a list to edit) and the fetches made (``provider.fetches``)."""
    from internships.accounts import oidc
    from lambdakit import clock

    class P:
        keys: list = []
        fetches = 0
        status = 200

    def fetch_json(url, form=None):
        assert url == URI and form is None
        P.fetches += 1
        return P.status, {"keys": list(P.keys)}

    oidc.forget()
    monkeypatch.setattr(oidc, "discovery", lambda: {"jwks_uri": URI, "issuer": "https://issuer.example.test"})
    monkeypatch.setattr(oidc, "fetch_json", fetch_json)
    yield P
    oidc.forget()
    clock.set_offset(0)


def test_by_kid_cached_an_hour(provider):
    from internships.accounts import oidc
    from lambdakit import clock
    from lambdakit.pyjwt import rs256_decoder

    provider.keys = [_jwk(0, kid="a", use="sig"), _jwk(1, kid="b")]
    for i, kid in ((0, "a"), (1, "b"), (0, "a")):
        tok = _token(i, kid)
        assert rs256_decoder.decode(tok, oidc.signing_key(tok), algorithms=["RS256"]) == {"sub": "s"}
    assert provider.fetches == 1
    clock.set_offset(oidc.JWKS_TTL + 1)
    oidc.signing_key(_token(0, "a"))
    assert provider.fetches == 2


def test_an_unknown_kid_refetches_once_then_waits_out_the_cooldown(provider):
    from internships.accounts import oidc
    from lambdakit import clock

    provider.keys = [_jwk(0, kid="a")]
    oidc.signing_key(_token(0, "a"))
    provider.keys.append(_jwk(1, kid="rotated"))  # the provider rotates
    assert oidc.signing_key(_token(1, "rotated")) is not None
    assert provider.fetches == 2
    for _ in range(3):  # made-up kids: one more fetch, then none during the cooldown
        with pytest.raises(oidc.ProviderError) as exc:
            oidc.signing_key(_token(1, "made-up"))
        assert exc.value.reason == "unknown_signing_key"
    assert provider.fetches == 2  # the rotation's refetch started the cooldown
    clock.set_offset(oidc.JWKS_REFRESH_COOLDOWN + 1)
    with pytest.raises(oidc.ProviderError):
        oidc.signing_key(_token(1, "made-up"))
    assert provider.fetches == 3


def test_unusable_members_are_skipped(provider):
    """Kept: RSA public signing keys with a kid that ``lambdakit.rs256`` accepts; an empty result
    is the provider's failure (the callback answers ``invalid_id_token``)."""
    from internships.accounts import oidc

    small = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    ec_jwk = json.loads(pyjwt.algorithms.ECAlgorithm.to_jwk(ec.generate_private_key(ec.SECP256R1()).public_key()))
    private = json.loads(pyjwt.algorithms.RSAAlgorithm.to_jwk(_key(2)))
    provider.keys = [
        {**ec_jwk, "kid": "ec"}, _jwk(0, kid="enc", use="enc"), _jwk(0), {**private, "kid": "private"},
        {**json.loads(pyjwt.algorithms.RSAAlgorithm.to_jwk(small.public_key())), "kid": "small"},
        _jwk(0, kid="ps", alg="PS256"), "not a key", _jwk(1, kid="good"),
    ]
    assert oidc.signing_key(_token(1, "good")).n == _key(1).public_key().public_numbers().n
    assert oidc.signing_key(_token(1, None)).n == _key(1).public_key().public_numbers().n  # the one usable key
    for kid in ("ec", "enc", "private", "small", "ps"):
        oidc.forget()
        with pytest.raises(oidc.ProviderError):
            oidc.signing_key(_token(0, kid))
    oidc.forget()
    provider.keys = [{**ec_jwk, "kid": "ec"}]
    with pytest.raises(oidc.ProviderError) as exc:
        oidc.signing_key(_token(0, "ec"))
    assert exc.value.reason == "jwks_failed"


def test_no_kid_needs_exactly_one_key_and_a_failed_fetch_is_the_providers(provider):
    from internships.accounts import oidc

    provider.keys = [_jwk(0, kid="a"), _jwk(1, kid="b")]
    with pytest.raises(oidc.ProviderError) as exc:
        oidc.signing_key(_token(0, None))
    assert exc.value.reason == "unknown_signing_key"
    oidc.forget()
    provider.status = 503
    with pytest.raises(oidc.ProviderError) as exc:
        oidc.signing_key(_token(0, "a"))
    assert exc.value.reason == "jwks_failed"
