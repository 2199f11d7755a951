"""Request and response bodies of the credential routes (OpenAPI)."""
from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from lambdakit.model import Model


class _Out(Model):
    """A response body: the route's answer is dumped through it, undeclared keys are dropped (issue 35)."""


class VerifyIn(Model):
    """Body of ``POST /api/credentials/verify``: the presented credential as a VC-JWT (compact JWS)."""
    model_config = ConfigDict(extra="forbid")

    credential: str = Field(min_length=1, max_length=20_000)


class CredentialVerification(_Out):
    success: bool
    valid: bool
    #: malformed | unknown_key | bad_signature | wrong_issuer | not_yet_valid | expired | revoked |
    #: unknown_credential; null when valid
    reason: str | None = None
    message: str
    credential: dict[str, Any] | None = None


class CredentialDownload(_Out):
    success: bool
    #: the OpenBadgeCredential (W3C VC 2.0 data model)
    credential: dict[str, Any]
    #: the same credential secured as a VC-JWT (EdDSA / Ed25519)
    jwt: str
    jwksUrl: str
    statusListCredential: str
    linkedInUrl: str


class Jwk(_Out):
    kty: str
    crv: str
    x: str
    kid: str
    alg: str
    use: str


class JwkSet(_Out):
    keys: list[Jwk]


class IssuerProfile(_Out):
    context: list[str] = Field(alias="@context", description="The JSON-LD contexts (VC 2.0, Open Badges 3.0)")
    id: str
    type: list[str]
    name: str
    url: str
