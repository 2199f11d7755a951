"""Open Badges 3.0 credentials (issue 34): the issuer's public keys (JWK set) and profile, the
revocation status lists, verification of a presented credential (all public), and the owner's
credential download (JSON + VC-JWT) and baked PNG badge. The rules are ``service``."""
from __future__ import annotations

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import client_ip, file_response, json_object, parse_model
from lambdakit.openapi import doc

from ..auth import principal, require_user
from ..http import build_app, lambda_entry, ok

router = APIGatewayHttpRouter()
PUBLIC_CACHE = "public, max-age=300"


def _json(body: dict, cache: str = PUBLIC_CACHE) -> Response:
    """A bare JSON document (no envelope) through the route's model, cacheable."""
    return ok(body, headers={"Cache-Control": cache})


@router.get("/api/credentials/jwks.json", summary="The credential signing keys (JWK set, public)",
            description="RFC 7517 JWK set of the Ed25519 keys (OKP, RFC 8037) that sign certificate credentials "
                        "and status lists; `kid` is the RFC 7638 thumbprint named in each VC-JWT header. A bare "
                        "JWK set (no envelope), as JOSE libraries read it.",
            openapi_extensions=doc(response="internships.credentials.models:JwkSet", public=True, errors=(503,)))
def jwks():
    from . import service

    return _json(service.jwks())


@router.get("/api/credentials/issuer", summary="The credentials' issuer profile (public)",
            description="The Open Badges 3.0 Profile named as `issuer.id` in every credential (no envelope).",
            openapi_extensions=doc(response="internships.credentials.models:IssuerProfile", public=True))
def issuer():
    from . import service

    return _json(service.issuer_profile())


@router.get("/api/credentials/status/<listId>", summary="A revocation status list (public)",
            description="The BitstringStatusListCredential (W3C Bitstring Status List v1.0, statusPurpose "
                        "revocation) as a VC-JWT (`application/vc+jwt`): `credentialSubject.encodedList` is the "
                        "131,072-bit list, GZIP-compressed, base64url, multibase prefix `u`; bit `i` (the first "
                        "byte's most significant bit is 0) is 1 when the credential with statusListIndex `i` is "
                        "revoked. Updated in the same transaction as a revocation; cached 5 minutes.",
            openapi_extensions=doc(content_type="application/vc+jwt", public=True, errors=(503,)))
def status_list(listId: str):  # noqa: N803
    from lambdakit.errors import NotFound

    from . import service

    if not listId.isdigit() or len(listId) > 5:
        raise NotFound("Status list not found")
    return Response(status_code=200, content_type="application/vc+jwt", body=service.status_list(int(listId)),
                    headers={"Cache-Control": PUBLIC_CACHE})


@router.post("/api/credentials/verify", summary="Verify a presented credential (public, rate limited)",
             description="Body {credential: VC-JWT}. 200 {valid, reason, message, credential?}: reason is null "
                         "when valid, else malformed, unknown_key, bad_signature, wrong_issuer, not_yet_valid, "
                         "expired, revoked or unknown_credential. 400 when the body is not {credential: string}; "
                         "429 over the limit (the certificate verify route's).",
             openapi_extensions=doc(body="internships.credentials.models:VerifyIn",
                                    response="internships.credentials.models:CredentialVerification", public=True,
                                    errors=(503,)))
def verify():
    from . import service
    from .models import VerifyIn

    body = parse_model(VerifyIn, json_object(router))
    service.limit(client_ip(router))
    return ok({"success": True, **service.verify_presented(body.credential)})


@router.get("/api/certificates/<certificateId>/credential",
            summary="The certificate's Open Badges 3.0 credential (owner or manage_certificates)",
            middlewares=[require_user],
            description="The OpenBadgeCredential (JSON), the same credential as a VC-JWT, where to find the keys "
                        "and the status list, and the LinkedIn add-to-profile link. 404 for an unknown certificate "
                        "and, for its owner, a revoked one.",
            openapi_extensions=doc(response="internships.credentials.models:CredentialDownload", errors=(503,)))
def download(certificateId: str):  # noqa: N803
    from . import service

    return ok({"success": True, **service.download(principal(router), certificateId)},
              headers={"Cache-Control": "private, no-store"})


@router.get("/api/certificates/<certificateId>/badge.png",
            summary="The certificate's badge PNG with the credential baked in (owner or manage_certificates)",
            middlewares=[require_user],
            description="Open Badges 3.0 baking: an iTXt chunk, keyword `openbadgecredential`, holding the VC-JWT.",
            openapi_extensions=doc(content_type="image/png", errors=(503,)))
def badge(certificateId: str):  # noqa: N803
    from . import service

    name, data = service.badge_png(principal(router), certificateId)
    return file_response(data, "image/png", name)


app = build_app(router)
lambda_handler = lambda_entry(app)
