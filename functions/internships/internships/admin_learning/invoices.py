"""Admin invoices: list, and send (emails the invoice PDF as an attachment)."""
from __future__ import annotations

from lambdakit import clock
from lambdakit.errors import Conflict, NotFound

from .. import activity
from . import repository as repo

SEARCH_ATTRS = ["number", "student_name", "student_email", "domain_name"]


def list_invoices(*, search, user_id, bounds, offset, limit, cursor):
    if user_id:
        pk, index = f"USER#{user_id}#INVOICES", "gsi1"
    else:
        pk, index = "INVOICES", "gsi2"
    flt = repo.attr_filter(None, (SEARCH_ATTRS, search) if search else None)
    items, nxt = repo.page(pk, index, flt=flt, bounds=bounds, offset=offset, limit=limit, cursor=cursor)
    if flt is None and bounds is None and not user_id:
        total, exact = repo.count("invoices"), True
    else:
        total, exact = repo.count_query(pk, index, flt=flt, bounds=bounds)
    return items, total, exact, nxt


def _pdf_key(inv: dict) -> str:
    if inv.get("pdf_key"):
        return inv["pdf_key"]
    from ..documents import service as documents

    return documents.store_invoice_pdf(inv["id"])  # renders with the documents package and stores it


def send(admin_id: str, iid: str, to: str | None = None) -> dict:
    from ..mail import outbox

    inv = repo.get_invoice(iid)
    if not inv:
        raise NotFound("Invoice not found")
    recipient = to or inv.get("student_email")
    if not recipient:
        raise Conflict("The invoice has no recipient email")
    key = _pdf_key(inv)
    filename = f"invoice-{str(inv.get('number', iid)).replace('/', '-')}.pdf"
    email_id = outbox.enqueue("invoice", recipient,
                              {"name": inv.get("student_name", ""), "invoiceNumber": inv.get("number", iid),
                               "amount": inv.get("amount")},
                              attachments=[{"filename": filename, "content_type": "application/pdf", "s3_key": key}],
                              user_id=inv.get("user_id"))
    now = clock.now_iso()
    repo.mark_invoice_sent(iid, email_id, now)
    activity.record(admin_id, "invoice.send", "invoice", iid, after={"email_id": email_id, "to_self": to is None})
    return {"emailId": email_id, "to": recipient, "invoiceId": iid}
