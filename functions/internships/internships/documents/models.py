"""Response bodies of the certificate and invoice routes (OpenAPI)."""
from __future__ import annotations

from pydantic import Field

from lambdakit.model import Model


class _Out(Model):
    """A response body: the route's answer is dumped through it, undeclared keys are dropped (issue 35)."""


class PublicCertificate(_Out):
    certificateId: str
    studentName: str
    domainName: str
    duration: int
    issueDate: str
    expiryAt: str | None = None


class OwnerCertificate(PublicCertificate):
    enrollmentId: str
    revoked: bool
    verifyUrl: str
    downloadUrl: str
    #: the Open Badges 3.0 credential (JSON + VC-JWT) and the badge PNG with it baked in
    credentialUrl: str
    badgeUrl: str
    #: LinkedIn "Add to profile" (certification name, organisation, issue/expiry month, URL, id)
    linkedInUrl: str


class CertificateList(_Out):
    success: bool
    certificates: list[OwnerCertificate]


class CertificateVerification(_Out):
    success: bool
    valid: bool
    certificate: PublicCertificate


class Invoice(_Out):
    id: str
    invoiceNumber: str
    enrollmentId: str
    domainName: str
    duration: int
    amount: float
    discount: float
    taxableValue: float
    cgst: float
    sgst: float
    igst: float
    gstRate: float
    taxMode: str
    issuedAt: str
    invoiceDate: str
    paymentId: str | None = None
    downloadUrl: str


class InvoiceList(_Out):
    success: bool
    invoices: list[Invoice]
    total: int
    limit: int
    offset: int


class InvoicesQuery(Model):
    # plain integers with defaults (not ``int | None``): the same contract, and no anyOf in the query schema
    limit: int = Field(default=20, ge=1, le=100)
    offset: int = Field(default=0, ge=0, le=10_000)
