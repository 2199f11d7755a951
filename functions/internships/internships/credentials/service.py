"""Open Badges 3.0 credentials of certificates (issue 34): each certificate is also an
``OpenBadgeCredential`` (alias ``AchievementCredential``) in the W3C Verifiable Credentials 2.0 data
model, secured as a VC-JWT (``typ: vc+jwt``, VC-JOSE-COSE: the JWT's payload is the credential,
with ``iss``/``jti``/``sub``/``nbf``/``exp``/``iat`` mirroring its issuer, id, subject and validity so
generic JWT verifiers check them too), signed EdDSA/Ed25519 (``lambdakit.ed25519``, pure Python);
revocation is a Bitstring Status List credential; expiry is ``validUntil``.

A credential is built from the certificate item whenever it is asked for (Ed25519 signatures are
deterministic: the same certificate and key give the same JWT), so issuing a certificate costs no
signature; its status-list index is given on first use (``ensure_index``).
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import json
import threading
from typing import Any

from lambdakit import clock
from lambdakit.errors import ApiError, NotFound

from ..settings import settings
from . import repository as repo
from .links import linkedin_url, verify_page

VC_CONTEXT = "https://www.w3.org/ns/credentials/v2"
OB_CONTEXT = "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"
TYP = "vc+jwt"
#: verification outcomes of a presented credential (``verify_presented``)
REASONS = ("malformed", "unknown_key", "bad_signature", "wrong_issuer", "not_yet_valid", "expired", "revoked",
           "unknown_credential")

_lock = threading.Lock()
_keys: dict[bytes, Any] = {}


def base_url() -> str:
    return settings().public_base_url.rstrip("/")


def issuer_id() -> str:
    return f"{base_url()}/api/credentials/issuer"


def jwks_url() -> str:
    return f"{base_url()}/api/credentials/jwks.json"


def status_list_url(list_id: int) -> str:
    return f"{base_url()}/api/credentials/status/{list_id}"


def credential_id(cert_id: str) -> str:
    return f"{base_url()}/api/credentials/certificates/{cert_id}"


def _signing_keys() -> list:
    from lambdakit.ed25519 import SigningKey

    out = []
    for seed in repo.signing_seeds():
        with _lock:
            key = _keys.get(seed)
            if key is None:
                key = _keys[seed] = SigningKey.from_seed(seed)
        out.append(key)
    if not out:
        raise ApiError("Credentials are not available: no signing key is configured", code="CREDENTIALS_UNAVAILABLE",
                       status=503)
    return out


def jwks() -> dict:
    """The public keys (RFC 7517 JWK set, OKP/Ed25519 by RFC 8037), the signing key first; ``kid`` is
    each key's RFC 7638 thumbprint."""
    return {"keys": [k.verifying.jwk() for k in _signing_keys()]}


def issuer_profile() -> dict:
    return {"@context": [VC_CONTEXT, OB_CONTEXT], "id": issuer_id(), "type": ["Profile"],
            "name": settings().issuer, "url": (settings().frontend_url or base_url()).rstrip("/")}


def _z(iso: str) -> str:
    """An ISO timestamp as ``YYYY-MM-DDThh:mm:ssZ`` (VC 2.0 dateTimeStamp)."""
    return clock.parse_iso(iso).strftime("%Y-%m-%dT%H:%M:%SZ")


def _identity(email: str, cert_id: str) -> dict:
    """The earner as a salted SHA-256 identity hash of the e-mail address (OB 3.0 IdentityObject): an
    employer who knows the address can check it; the credential does not disclose it."""
    salt = hashlib.sha256(f"salt:{cert_id}".encode()).hexdigest()[:16]
    digest = hashlib.sha256((email.strip().lower() + salt).encode()).hexdigest()
    return {"type": "IdentityObject", "identityHash": f"sha256${digest}", "identityType": "emailAddress",
            "hashed": True, "salt": salt}


def credential(cert: dict, index: int) -> dict:
    """The unsigned OpenBadgeCredential of a certificate with status-list index ``index``."""
    s = settings()
    cid = cert["certificate_id"]
    list_id = index // repo.LIST_SIZE + 1
    name = f"{cert['domain_name']} internship"
    achievement = {
        "id": f"{base_url()}/api/credentials/achievements/{cert['domain_id']}", "type": ["Achievement"],
        "name": name, "achievementType": "Certificate",
        "description": f"Completed the {cert['domain_name']} internship programme ({cert['duration']} weeks).",
        "criteria": {"narrative": f"Completed every milestone of the {cert['duration']}-week "
                                  f"{cert['domain_name']} internship."}}
    subject: dict[str, Any] = {"type": ["AchievementSubject"], "achievement": achievement,
                               "identifier": [_identity(cert.get("student_email") or "", cid)]}
    vc: dict[str, Any] = {
        "@context": [VC_CONTEXT, OB_CONTEXT], "id": credential_id(cid),
        "type": ["VerifiableCredential", "OpenBadgeCredential"], "name": f"{name}: {cert['student_name']}",
        "issuer": {"id": issuer_id(), "type": ["Profile"], "name": s.issuer},
        "validFrom": _z(cert.get("issued_at") or cert["issue_date"] + "T00:00:00Z"),
        "credentialSubject": subject,
        "credentialStatus": {"id": f"{status_list_url(list_id)}#{index % repo.LIST_SIZE}",
                             "type": "BitstringStatusListEntry", "statusPurpose": "revocation",
                             "statusListIndex": str(index % repo.LIST_SIZE),
                             "statusListCredential": status_list_url(list_id)},
        "evidence": [{"id": verify_page(cid), "type": ["Evidence"], "name": f"Certificate {cid}"}]}
    if cert.get("expiry_at"):
        vc["validUntil"] = _z(cert["expiry_at"])
    return vc


def sign(vc: dict) -> str:
    """The VC-JWT of ``vc`` signed with the current key."""
    from lambdakit.ed25519 import eddsa_jwt

    key = _signing_keys()[0]
    claims = dict(vc)
    claims.update({"iss": issuer_id(), "jti": vc["id"], "nbf": _ts(vc["validFrom"]), "iat": _ts(vc["validFrom"])})
    if vc.get("validUntil"):
        claims["exp"] = _ts(vc["validUntil"])
    subject = (vc.get("credentialSubject") or {}).get("id")
    if subject:
        claims["sub"] = subject
    return eddsa_jwt().encode(claims, key, algorithm="EdDSA",
                              headers={"kid": key.verifying.thumbprint(), "typ": TYP, "cty": "vc"})


def _ts(z: str) -> int:
    return int(clock.parse_iso(z).timestamp())


def ensure_index(cert: dict) -> int:
    """The certificate's status-list index, given on first use (at most a few attempts under races)."""
    for _ in range(3):
        if cert.get("status_index") is not None:
            return int(cert["status_index"])
        index = repo.next_index()
        if repo.assign_index(cert, index):
            return index
        cert = repo.certificate(cert["certificate_id"]) or {}
        if not cert:
            raise NotFound("Certificate not found")
    raise ApiError("The credential could not be prepared, please retry", code="CONTENTION", status=503,
                   headers={"Retry-After": "1"})


def owned_certificate(p, cert_id: str) -> dict:
    """The certificate for its owner (not when revoked) or a ``manage_certificates`` holder."""
    c = repo.certificate((cert_id or "").strip().upper())
    if not c or (c["user_id"] != p.user_id and not p.has("manage_certificates")):
        raise NotFound("Certificate not found")
    if c.get("revoked") and c["user_id"] == p.user_id:
        raise NotFound("Certificate not found")
    return c


def download(p, cert_id: str) -> dict:
    c = owned_certificate(p, cert_id)
    vc = credential(c, ensure_index(c))
    return {"credential": vc, "jwt": sign(vc), "jwksUrl": jwks_url(),
            "statusListCredential": vc["credentialStatus"]["statusListCredential"],
            "linkedInUrl": linkedin_url(c)}


def badge_png(p, cert_id: str) -> tuple[str, bytes]:
    from .badge import baked_png

    c = owned_certificate(p, cert_id)
    token = sign(credential(c, ensure_index(c)))
    return f"{c['certificate_id']}.png", baked_png(token, title=c["domain_name"], subtitle=c["certificate_id"],
                                                  issuer=settings().issuer)


# ---------------------------------------------------------------- status lists
def encoded_list(revoked: list[int]) -> str:
    """Bitstring Status List ``encodedList``: the bitstring (index 0 = the first byte's most
    significant bit), GZIP-compressed, base64url without padding, multibase prefix ``u``."""
    bits = bytearray(repo.LIST_SIZE // 8)
    for i in revoked:
        bits[i // 8] |= 0x80 >> (i % 8)
    packed = gzip.compress(bytes(bits), mtime=0)
    return "u" + base64.urlsafe_b64encode(packed).decode().rstrip("=")


def status_list(list_id: int) -> str:
    """The signed BitstringStatusListCredential of list ``list_id`` (a VC-JWT)."""
    if list_id < 1 or list_id > 10_000:
        raise NotFound("Status list not found")
    now = clock.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    url = status_list_url(list_id)
    vc = {"@context": [VC_CONTEXT], "id": url, "type": ["VerifiableCredential", "BitstringStatusListCredential"],
          "issuer": issuer_id(), "validFrom": now,
          "credentialSubject": {"id": f"{url}#list", "type": "BitstringStatusList", "statusPurpose": "revocation",
                                "encodedList": encoded_list(repo.revoked_indexes(list_id))}}
    return sign(vc)


# ---------------------------------------------------------------- verifying a presented credential
def limit(ip: str) -> None:
    """The presented-credential check shares the certificate verify route's per-IP budget."""
    from lambdakit.errors import RateLimited

    from ..accounts import repository as accounts_repo

    d = accounts_repo.rate_hit(f"certverify#{ip}", settings().certificate_verify_rate_per_minute, 60)
    if not d.allowed:
        raise RateLimited("Too many requests, please try again later", headers=d.headers())


def verify_presented(token: str) -> dict:
    """Why a presented VC-JWT is or is not valid: ``{valid, reason, ...}``, ``reason`` one of
    ``REASONS`` (``None`` when valid). Checks, in order: a compact JWS of ours (``typ``, EdDSA,
    JSON payload), a ``kid`` of the published key set, the signature, the issuer, the validity
    period, the status list entry, and that the certificate still exists."""
    parts = token.strip().split(".") if isinstance(token, str) else []
    if len(parts) != 3:
        return _fail("malformed", "Not a compact JWS (three base64url parts)")
    try:
        header = json.loads(_b64d(parts[0]))
        payload = json.loads(_b64d(parts[1]))
    except ValueError:
        return _fail("malformed", "The header or payload is not base64url JSON")
    if not isinstance(header, dict) or not isinstance(payload, dict):
        return _fail("malformed", "The header and payload must be JSON objects")
    if header.get("alg") != "EdDSA" or header.get("typ") not in (TYP, "JWT"):
        return _fail("malformed", "Expected alg EdDSA and typ vc+jwt")
    keys = {k.verifying.thumbprint(): k.verifying for k in _signing_keys()}
    key = keys.get(str(header.get("kid")))
    if key is None:
        return _fail("unknown_key", "The key id is not in the published key set")
    from lambdakit.ed25519 import BadSignature

    try:
        key.verify(_b64d(parts[2]), f"{parts[0]}.{parts[1]}".encode())
    except (BadSignature, ValueError):
        return _fail("bad_signature", "The signature does not match the credential")
    issuer = payload.get("issuer")
    if (issuer.get("id") if isinstance(issuer, dict) else issuer) != issuer_id() or payload.get("iss") != issuer_id():
        return _fail("wrong_issuer", "Not issued by this service")
    now = clock.now()
    status = payload.get("credentialStatus")
    if not all(isinstance(payload.get(k, ""), str) for k in ("validFrom", "validUntil", "id")) \
            or not isinstance(status, dict):
        return _fail("malformed", "validFrom, validUntil, id or credentialStatus has the wrong type")
    try:
        if payload.get("validFrom") and clock.parse_iso(payload["validFrom"]) > now:
            return _fail("not_yet_valid", "The credential is not valid yet")
        if payload.get("validUntil") and clock.parse_iso(payload["validUntil"]) <= now:
            return _fail("expired", "The credential has expired", payload)
    except (TypeError, ValueError):
        return _fail("malformed", "validFrom/validUntil are not timestamps")
    try:
        list_id = int(str(status.get("statusListCredential", "")).rsplit("/", 1)[-1])
        index = int(str(status.get("statusListIndex")))
    except (TypeError, ValueError):
        return _fail("malformed", "credentialStatus is missing or malformed")
    if repo.is_revoked(list_id, index):
        return _fail("revoked", "The credential has been revoked", payload)
    cert_id = str(payload.get("id", "")).rsplit("/", 1)[-1]
    if repo.certificate(cert_id) is None:
        return _fail("unknown_credential", "No such certificate")
    return {"valid": True, "reason": None, "message": "The credential is valid", "credential": payload}


def _fail(reason: str, message: str, payload: dict | None = None) -> dict:
    return {"valid": False, "reason": reason, "message": message, **({"credential": payload} if payload else {})}


def _b64d(s: str) -> bytes:
    if not s or any(c not in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" for c in s):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
