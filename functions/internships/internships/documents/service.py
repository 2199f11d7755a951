"""Certificates (issue, verify, list, PDF) and invoices (list, PDF)."""
from __future__ import annotations

import datetime as dt
import logging

from lambdakit import clock
from lambdakit.errors import (
    ConditionFailed,
    Conflict,
    FileStoreError,
    FileStoreUnavailable,
    Gone,
    NotFound,
    RateLimited,
)
from lambdakit.observability import count

from .. import notify
from ..accounts import repository as accounts_repo
from ..enrollments import invoices as invoice_rules
from ..enrollments import repository as enrollments
from ..settings import settings
from . import certificates
from . import repository as repo

logger = logging.getLogger("internships.documents")


# ---------------------------------------------------------------- certificates
def issue_for(e: dict) -> dict:
    """Complete the enrollment and issue its certificate in one transaction (new id on collision)."""
    s = settings()
    now = clock.now_iso()
    expiry = None
    if s.certificate_validity_days > 0:
        expiry = clock.iso(clock.now() + dt.timedelta(days=s.certificate_validity_days))
    user = accounts_repo.get_user(e["user_id"]) or {}
    for _ in range(5):
        cert = {"certificate_id": certificates.new_id(), "enrollment_id": e["id"], "user_id": e["user_id"],
                "student_name": user.get("name") or e.get("student_name", ""),
                "student_email": user.get("email") or e.get("student_email", ""), "domain_id": e["domain_id"],
                "domain_name": e["domain_name"], "duration": e["duration"], "issue_date": now[:10],
                "issued_at": now, "expiry_at": expiry, "revoked": False}
        try:
            enrollments.complete(e, cert, now)
            break
        except ConditionFailed as exc:
            if exc.reasons and exc.reasons[0] == "ConditionalCheckFailed":
                raise Conflict("The enrollment changed meanwhile; reload and retry") from None
            continue  # certificate id collision: draw another
    else:
        raise Conflict("Could not allocate a certificate id, please retry")
    count("CertificatesIssued")
    key = None
    try:
        key = store_certificate_pdf(cert)
    except Exception:  # noqa: BLE001 - the PDF is re-rendered on first download
        logger.exception("certificate PDF rendering failed")
    attachments = [{"filename": f"{cert['certificate_id']}.pdf", "content_type": "application/pdf",
                    "s3_key": key}] if key else None
    notify.send("certificate", cert["student_email"], {
        "name": cert["student_name"], "domainName": cert["domain_name"], "certificateId": cert["certificate_id"],
        "verifyUrl": certificates.verify_url(cert["certificate_id"])},
        dedupe_key=f"certificate-{cert['certificate_id']}", attachments=attachments, user_id=e["user_id"])
    return cert


def _render_certificate(cert: dict) -> bytes:
    # cold start: only a render pays for fpdf2 and the layout model (ADMIN's active template, if any)
    from .layout import active_layout
    from .pdf import certificate_pdf

    return certificate_pdf(cert, verify_url=certificates.verify_url(cert["certificate_id"]),
                           issuer=settings().seller_name, layout=active_layout())


def store_certificate_pdf(cert: dict) -> str:
    key = f"certificates/{cert['certificate_id']}.pdf"
    repo.put_pdf(key, _render_certificate(cert))
    repo.set_pdf_key("certificate", cert["certificate_id"], key)
    return key


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


def my_certificates(p) -> list[dict]:
    return [certificates.owner_view(c) for c in repo.certificates_for_user(p.user_id)]


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
    s = settings()
    return {"name": s.seller_name, "address": s.seller_address, "gstin": s.seller_gstin, "state": s.seller_state}


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
