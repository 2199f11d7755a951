"""Certificates (issue, verify, list, PDF) and invoices (list, PDF)."""
from __future__ import annotations

import datetime as dt
import logging

from lambdakit import clock
from lambdakit.errors import (
    ApiError,
    ConditionFailed,
    Conflict,
    Contention,
    FileStoreError,
    FileStoreUnavailable,
    Gone,
    NotFound,
    RateLimited,
)
from lambdakit.observability import count

from ..accounts import repository as accounts_repo
from ..enrollments import invoices as invoice_rules
from ..enrollments import repository as enrollments
from ..mail import outbox
from ..settings import settings
from . import certificates
from . import repository as repo

logger = logging.getLogger("internships.documents")
#: attempts at issuing a certificate (a certificate id collision, an unconfirmed condition failure)
ISSUE_ATTEMPTS = 5


# ---------------------------------------------------------------- certificates
def issue_for(e: dict) -> dict:
    """Complete the enrollment and issue its certificate in one transaction, with the student's
    email (the PDF attached) in the same transaction: the transactional outbox (issue 23 rule 4),
    the email exists exactly when the certificate does.

    The PDF is rendered and stored BEFORE the transaction (its key goes into the certificate and
    the email, so the email never names an object that is not there); a rendering or upload
    failure leaves both without it (the PDF is rendered on first download, the email goes without
    the attachment). A certificate id collision draws another id; a failed enrollment condition is
    read back before it is believed (rule 2): the same status, it is retried."""
    s = settings()
    expiry = None
    if s.certificate_validity_days > 0:
        expiry = clock.iso(clock.now() + dt.timedelta(days=s.certificate_validity_days))
    user = accounts_repo.get_user(e["user_id"]) or {}
    for _ in range(ISSUE_ATTEMPTS):
        now = clock.now_iso()
        cert = {"certificate_id": certificates.new_id(), "enrollment_id": e["id"], "user_id": e["user_id"],
                "student_name": user.get("name") or e.get("student_name", ""),
                "student_email": user.get("email") or e.get("student_email", ""), "domain_id": e["domain_id"],
                "domain_name": e["domain_name"], "duration": e["duration"], "issue_date": now[:10],
                "issued_at": now, "expiry_at": expiry, "revoked": False}
        key = _stored_pdf(cert)
        if key:
            cert["pdf_key"] = key
        email_id, mail_ops = outbox.pending_if_addressed("certificate", cert["student_email"], {
            "name": cert["student_name"], "domainName": cert["domain_name"], "certificateId": cert["certificate_id"],
            "verifyUrl": certificates.verify_url(cert["certificate_id"])},
            attachments=[{"filename": f"{cert['certificate_id']}.pdf", "content_type": "application/pdf",
                          "s3_key": key}] if key else None, user_id=e["user_id"])
        try:
            enrollments.complete(e, cert, now, mail_ops, fresh=outbox.fresh_puts(mail_ops))
            break
        except ConditionFailed as exc:
            if exc.reasons and exc.reasons[0] == "ConditionalCheckFailed":
                cur = enrollments.get(e["id"], consistent=True)
                if not cur or cur["status"] != e["status"]:
                    raise Conflict("The enrollment changed meanwhile; reload and retry") from None
            continue  # certificate id collision (or an unconfirmed failure): draw another id
    else:
        raise Contention("Could not issue the certificate, please retry")
    count("CertificatesIssued")
    outbox.announce(email_id)
    return cert


def _stored_pdf(cert: dict) -> str | None:
    """The certificate's PDF stored in the files bucket; None when rendering or the upload failed."""
    key = f"certificates/{cert['certificate_id']}.pdf"
    try:
        repo.put_pdf(key, _render_certificate(cert))
    except Exception:  # noqa: BLE001 - the PDF is re-rendered on first download
        logger.exception("certificate PDF rendering or upload failed")
        return None
    return key


def _render_certificate(cert: dict) -> bytes:
    # cold start: only a render pays for fpdf2 and the layout model (ADMIN's active template, if any)
    from .layout import active_layout
    from .pdf import certificate_pdf

    return certificate_pdf(cert, verify_url=certificates.verify_url(cert["certificate_id"]),
                           issuer=settings().issuer, layout=active_layout())


def verify(cert_id: str, ip: str) -> dict:
    d = accounts_repo.rate_hit(f"certverify#{ip}", settings().certificate_verify_rate_per_minute, 60)
    if not d.allowed:
        raise RateLimited("Too many requests, please try again later", headers=d.headers())
    c = repo.certificate((cert_id or "").strip().upper())
    if not c or c.get("revoked"):
        raise NotFound("Certificate not found")
    if certificates.is_expired(c):
        raise Gone("Certificate has expired")
    return {"valid": True, "certificate": certificates.public_view(c)}


def certificate_pdf(p, cert_id: str) -> tuple[str, bytes]:
    c = repo.certificate((cert_id or "").strip().upper())
    if not c or (c["user_id"] != p.user_id and not p.has("manage_certificates")):
        raise NotFound("Certificate not found")
    if c.get("revoked") and c["user_id"] == p.user_id:
        raise NotFound("Certificate not found")
    stored: bytes | None = None
    readable = True
    if c.get("pdf_key"):
        try:
            stored = repo.get_pdf(c["pdf_key"])
        except (FileStoreUnavailable, FileStoreError):
            # issue 23 rule 4: the stored copy cannot be read now: the PDF is rendered again and
            # served, and not stored over a copy that may well be intact
            logger.warning("stored certificate PDF unreadable, rendering it", extra={"pdf_key": c["pdf_key"]})
            readable = False
    if stored is not None:
        return f"{c['certificate_id']}.pdf", stored
    data = _render_certificate(c)
    if readable:
        try:
            repo.put_pdf(f"certificates/{c['certificate_id']}.pdf", data)
            repo.set_pdf_key("certificate", c["certificate_id"], f"certificates/{c['certificate_id']}.pdf")
        except Exception:  # noqa: BLE001 - serving the PDF matters more than caching it
            logger.warning("could not cache certificate PDF")
    return f"{c['certificate_id']}.pdf", data


# ---------------------------------------------------------------- invoices
def my_invoices(p, limit: int, offset: int) -> dict:
    items = repo.invoices_for_user(p.user_id, limit, offset)
    return {"invoices": [invoice_rules.view(i) for i in items], "total": repo.invoice_count(p.user_id),
            "limit": limit, "offset": offset}


def _seller() -> dict:
    """The supplier block of every invoice (CGST Rules, rule 46: legal name, address, GSTIN). A stack
    deployed without them issues no invoice PDF (503) rather than one a tax authority would refuse."""
    s = settings()
    seller = {"name": s.seller_name, "address": s.seller_address, "gstin": s.seller_gstin, "state": s.seller_state}
    missing = [k for k in ("name", "address", "gstin") if not seller[k]]
    if missing:
        logger.error("invoice supplier not configured: %s (template parameters SellerName, SellerAddress, "
                     "SellerGstin)", ", ".join(missing))
        raise ApiError("Invoices are not available: the supplier's details are not configured",
                       code="SUPPLIER_NOT_CONFIGURED", status=503, details={"missing": missing})
    return seller


def render_invoice(inv: dict) -> bytes:
    """PDF of an invoice item; tax lines are derived from the amount when an item lacks them."""
    from .pdf import invoice_pdf

    s = settings()
    issued = inv.get("issued_at") or clock.now_iso()
    full = {"price": inv.get("amount", 0), "discount": 0, "duration": 1, "domain_name": "",
            "invoice_date": clock.parse_iso(issued).astimezone(invoice_rules.IST).date().isoformat(),
            **invoice_rules.taxes(inv.get("amount", 0), inv.get("student_state"), s.seller_state,
                                  s.gst_rate_percent),
            **inv}
    return invoice_pdf(full, seller=_seller())


def invoice_pdf(p, invoice_id: str) -> tuple[str, bytes]:
    inv = repo.invoice(invoice_id)
    if not inv or inv["user_id"] != p.user_id:
        raise NotFound("Invoice not found")
    return inv["number"].replace("/", "-") + ".pdf", render_invoice(inv)


def ensure_invoice_pdf(inv: dict) -> str:
    """S3 key of the invoice's PDF, rendering and storing it first when missing (ADMIN's send)."""
    if inv.get("pdf_key"):
        return inv["pdf_key"]
    return store_invoice_pdf(inv["id"])


def store_invoice_pdf(invoice_id: str) -> str:
    """Render an invoice into the files bucket (for e-mail attachments); returns its S3 key."""
    inv = repo.invoice(invoice_id)
    if not inv:
        raise NotFound("Invoice not found")
    key = f"invoices/{inv['id']}.pdf"
    repo.put_pdf(key, render_invoice(inv))
    repo.set_pdf_key("invoice", inv["id"], key)
    return key
