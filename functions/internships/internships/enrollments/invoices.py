"""GST invoice rules: numbering within the Indian financial year, tax split.

An enrollment's invoice is issued when it activates (``service.activate``, in the activating
transaction); the documents package lists and renders invoices with ``view`` and ``taxes``.

Numbers look like ``INV/25-26/000123`` (16 characters, GST rule 46 allows at most 16), consecutive
within the financial year (1 April – 31 March, India time) and allocated by a compare-and-set of
``SEQ#INVOICE / FY#<yy-yy>`` inside the issuing transaction, so there are no gaps and no duplicates.
Prices are tax inclusive: taxable value = amount / (1 + rate). Inside the seller's state the tax
is split CGST + SGST, otherwise IGST (place of supply = the student's state when known).
"""
from __future__ import annotations

import datetime as dt

from lambdakit import clock

IST = dt.timezone(dt.timedelta(hours=5, minutes=30))
MAX_SEQUENCE = 999_999


def financial_year(at: dt.datetime) -> str:
    local = at.astimezone(IST)
    start = local.year if local.month >= 4 else local.year - 1
    return f"{start % 100:02d}-{(start + 1) % 100:02d}"


def invoice_number(fy: str, n: int) -> str:
    if not 1 <= n <= MAX_SEQUENCE:
        raise ValueError("invoice sequence exhausted for the financial year")
    return f"INV/{fy}/{n:06d}"


def taxes(amount: float, student_state: str | None, seller_state: str, rate_percent: float) -> dict:
    amount = round(float(amount), 2)
    taxable = round(amount / (1 + rate_percent / 100.0), 2)
    tax = round(amount - taxable, 2)
    same = not student_state or student_state.strip().casefold() == (seller_state or "").strip().casefold()
    if same:
        cgst = round(tax / 2, 2)
        return {"tax_mode": "intra", "taxable_value": taxable, "cgst": cgst, "sgst": round(tax - cgst, 2),
                "igst": 0.0, "gst_rate": rate_percent, "total_tax": tax}
    return {"tax_mode": "inter", "taxable_value": taxable, "cgst": 0.0, "sgst": 0.0, "igst": tax,
            "gst_rate": rate_percent, "total_tax": tax}


def build(invoice_id: str, number: str, fy: str, n: int, enrollment: dict, user: dict, *, seller_state: str,
          rate_percent: float, issued_at: str) -> dict:
    t = taxes(enrollment["amount"], user.get("state"), seller_state, rate_percent)
    return {
        "id": invoice_id, "number": number, "financial_year": fy, "sequence": n,
        "enrollment_id": enrollment["id"], "user_id": enrollment["user_id"],
        "student_name": user.get("name", ""), "student_email": user.get("email", ""),
        "student_state": user.get("state") or "", "student_phone": user.get("phone") or "",
        "domain_id": enrollment["domain_id"], "domain_name": enrollment["domain_name"],
        "duration": enrollment["duration"], "price": enrollment["price"], "discount": enrollment["discount"],
        "amount": enrollment["amount"], "coupon_code": enrollment.get("coupon_code"),
        "payment_id": enrollment.get("payment_id"), "order_id": enrollment.get("order_id"),
        "issued_at": issued_at, "invoice_date": clock.parse_iso(issued_at).astimezone(IST).date().isoformat(),
        **t,
    }


def view(inv: dict) -> dict:
    return {"id": inv["id"], "invoiceNumber": inv["number"], "enrollmentId": inv["enrollment_id"],
            "domainName": inv["domain_name"], "duration": inv["duration"], "amount": inv["amount"],
            "discount": inv.get("discount", 0), "taxableValue": inv["taxable_value"], "cgst": inv["cgst"],
            "sgst": inv["sgst"], "igst": inv["igst"], "gstRate": inv["gst_rate"], "taxMode": inv["tax_mode"],
            "issuedAt": inv["issued_at"], "invoiceDate": inv["invoice_date"], "paymentId": inv.get("payment_id"),
            "downloadUrl": f"/api/invoices/{inv['id']}/download-simple"}
