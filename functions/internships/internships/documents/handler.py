"""Certificates and invoices: my-certificates, public verify, certificate PDF download (added),
my-invoices, invoice PDF (owner only). The list of certificates answers from ``views``; the other
routes import the rules (``service``) themselves (issue #21, cold first request)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import client_ip, file_response, int_query
from lambdakit.openapi import doc

from ..auth import principal, require_user
from ..http import build_app, lambda_entry, ok
from . import views

router = APIGatewayHttpRouter()


def _pdf(filename: str, data: bytes) -> Response:
    return file_response(data, "application/pdf", filename)


@router.get("/api/certificates/my-certificates", summary="The caller's certificates", middlewares=[require_user],
             openapi_extensions=doc(response="internships.documents.models:CertificateList"))
def my_certificates():
    return ok({"success": True, "certificates": views.my_certificates(principal(router))})


@router.get("/api/certificates/verify/<certificateId>", summary="Verify a certificate (public, rate limited)",
            description="200 {valid, certificate}; 404 unknown or revoked; 410 expired; 429 over the limit.",
             openapi_extensions=doc(response="internships.documents.models:CertificateVerification", errors=(410,), public=True))
def verify(certificateId: str):  # noqa: N803
    from . import service

    return ok({"success": True, **service.verify(certificateId, client_ip(router))})


@router.get("/api/certificates/<certificateId>/download", summary="Certificate PDF (owner or manage_certificates)",
            middlewares=[require_user],
            description="The stored PDF; when it is not stored, or S3 cannot read it now, the PDF is rendered "
                        "again and served (never a 503 for S3).",
             openapi_extensions=doc(content_type="application/pdf", errors=(409,)))
def download_certificate(certificateId: str):  # noqa: N803
    from . import service

    return _pdf(*service.certificate_pdf(principal(router), certificateId))


@router.get("/api/invoices/my-invoices", summary="The caller's invoices (limit, offset)", middlewares=[require_user],
             openapi_extensions=doc(query="internships.documents.models:InvoicesQuery", response="internships.documents.models:InvoiceList"))
def my_invoices():
    from . import service

    limit = int_query(router, "limit", 20, minimum=1, maximum=100)
    offset = int_query(router, "offset", 0, minimum=0, maximum=10_000)
    return ok({"success": True, **service.my_invoices(principal(router), limit, offset)})


@router.get("/api/invoices/<id>/download-simple", summary="Invoice PDF (owner only)", middlewares=[require_user],
            description="A GST tax invoice naming the supplier (legal name, address, GSTIN: CGST Rules, rule 46). "
                        "503 `SUPPLIER_NOT_CONFIGURED` while the stack's SellerName, SellerAddress or "
                        "SellerGstin parameter is empty (docs/internships-journey.md).",
            openapi_extensions=doc(content_type="application/pdf", errors=(409, 503)))
def download_invoice(id: str):  # noqa: A002
    from . import service

    return _pdf(*service.invoice_pdf(principal(router), id))


app = build_app(router)
lambda_handler = lambda_entry(app)
