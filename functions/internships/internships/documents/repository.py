"""Certificates (``CERT#<id>``), invoices (``INVOICE#<id>``) and their PDFs in the files bucket; the
certificate templates' keys (``CERTTPL#<id>`` / ``CERTTPL``, the active one named by ``CERTTPL`` /
``ACTIVE``): ADMIN writes them (``admin_learning.repository``), the certificate PDF reads the active one."""
from __future__ import annotations

from lambdakit import s3

from ..settings import settings
from ..store import clean as _clean
from ..store import table


def certificate(cert_id: str) -> dict | None:
    if not cert_id or len(cert_id) > 40:
        return None
    return _clean(table().get(f"CERT#{cert_id}", "CERT"))


def certificates_for_user(uid: str) -> list[dict]:
    return [_clean(i) for i in table().query_all(f"USER#{uid}#CERTS", index="gsi1", forward=False, max_items=200)]


def invoice(invoice_id: str) -> dict | None:
    if not invoice_id or len(invoice_id) > 64:
        return None
    return _clean(table().get(f"INVOICE#{invoice_id}", "INVOICE"))


def invoices_for_user(uid: str, limit: int, offset: int) -> list[dict]:
    items, cursor = table().query(f"USER#{uid}#INVOICES", index="gsi1", forward=False, limit=offset + limit)
    return [_clean(i) for i in items[offset:offset + limit]]


def invoice_count(uid: str) -> int:
    u = table().get(f"USER#{uid}", "PROFILE", attributes=["invoice_count"]) or {}
    return int(u.get("invoice_count", 0))


ACTIVE_TEMPLATE_KEY = ("CERTTPL", "ACTIVE")


def template_key(tid: str) -> tuple[str, str]:
    return f"CERTTPL#{tid}", "CERTTPL"


def certificate_template(tid: str) -> dict | None:
    return _clean(table().get(*template_key(tid), consistent=True))


def active_template_pointer() -> dict | None:
    return table().get(*ACTIVE_TEMPLATE_KEY, consistent=True)


def set_pdf_key(kind: str, item_id: str, key: str) -> None:
    pk, sk = (f"CERT#{item_id}", "CERT") if kind == "certificate" else (f"INVOICE#{item_id}", "INVOICE")
    table().update(pk, sk, set={"pdf_key": key}, must_exist=True)


def put_pdf(key: str, data: bytes) -> None:
    """S3 failures are ``lambdakit.s3``'s domain errors (503 ``Retry-After`` when transient, else 500)."""
    s3.put(settings().files_bucket, key, data, content_type="application/pdf")


def get_pdf(key: str) -> bytes | None:
    """The stored PDF, ``None`` when it is not there."""
    return s3.get(settings().files_bucket, key)
