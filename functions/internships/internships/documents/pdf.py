"""PDF rendering with fpdf2 (imported lazily) and a Unicode TTF font, so non-Latin names render.

The font ships in the ``ttf-opensans`` PyPI package (Latin, Greek, Cyrillic, Vietnamese). Where that
package is missing (a developer machine) a system DejaVu Sans is used, and as a last resort the core
Helvetica font with unsupported characters replaced.
"""
from __future__ import annotations

import io
from pathlib import Path

_SYSTEM_FONTS = (
    ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"),
)


def font_files() -> tuple[str, str] | None:
    try:
        import ttf_opensans  # type: ignore[import-not-found]

        base = Path(ttf_opensans.__file__).parent / "ttf"
        reg, bold = base / "OpenSans-Regular.ttf", base / "OpenSans-Bold.ttf"
        if reg.exists() and bold.exists():
            return str(reg), str(bold)
    except ImportError:
        pass
    for reg, bold in _SYSTEM_FONTS:
        if Path(reg).exists() and Path(bold).exists():
            return reg, bold
    return None


def _new_pdf(orientation: str):
    from fpdf import FPDF

    pdf = FPDF(orientation=orientation, unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    files = font_files()
    if files:
        pdf.add_font("Body", "", files[0])
        pdf.add_font("Body", "B", files[1])
        family = "Body"
    else:  # pragma: no cover - only without any TTF available
        family = "Helvetica"
    pdf.add_page()
    return pdf, family, files is not None


def _txt(s: str, unicode_ok: bool) -> str:
    s = str(s if s is not None else "")
    return s if unicode_ok else s.encode("latin-1", "replace").decode("latin-1")


def _qr_png(data: str) -> bytes:
    import qrcode

    img = qrcode.make(data, box_size=8, border=2)
    buf = io.BytesIO()
    img.save(buf)
    return buf.getvalue()


def certificate_pdf(c: dict, *, verify_url: str, issuer: str) -> bytes:
    pdf, fam, uni = _new_pdf("L")
    w, h = 297, 210
    pdf.set_draw_color(30, 64, 120)
    pdf.set_line_width(2)
    pdf.rect(8, 8, w - 16, h - 16)
    pdf.set_line_width(0.5)
    pdf.rect(12, 12, w - 24, h - 24)
    pdf.set_text_color(30, 64, 120)
    pdf.set_font(fam, "B", 30)
    pdf.set_xy(0, 30)
    pdf.cell(w, 14, _txt("Certificate of Completion", uni), align="C")
    pdf.set_text_color(60, 60, 60)
    pdf.set_font(fam, "", 14)
    pdf.set_xy(0, 55)
    pdf.cell(w, 8, _txt("This is to certify that", uni), align="C")
    pdf.set_text_color(0, 0, 0)
    pdf.set_font(fam, "B", 28)
    pdf.set_xy(20, 68)
    pdf.cell(w - 40, 14, _txt(c["student_name"], uni), align="C")
    pdf.set_font(fam, "", 14)
    pdf.set_text_color(60, 60, 60)
    months = int(c["duration"])
    pdf.set_xy(30, 90)
    pdf.multi_cell(w - 60, 8, _txt(
        f"has successfully completed the {months}-month internship programme in", uni), align="C")
    pdf.set_font(fam, "B", 20)
    pdf.set_text_color(30, 64, 120)
    pdf.set_xy(20, 106)
    pdf.cell(w - 40, 12, _txt(c["domain_name"], uni), align="C")
    pdf.set_font(fam, "", 12)
    pdf.set_text_color(40, 40, 40)
    pdf.set_xy(30, 150)
    pdf.cell(120, 7, _txt(f"Certificate ID: {c['certificate_id']}", uni))
    pdf.set_xy(30, 158)
    pdf.cell(120, 7, _txt(f"Issued on: {c['issue_date']}", uni))
    if c.get("expiry_at"):
        pdf.set_xy(30, 166)
        pdf.cell(120, 7, _txt(f"Valid until: {str(c['expiry_at'])[:10]}", uni))
    pdf.set_xy(30, 174)
    pdf.cell(120, 7, _txt(issuer, uni))
    pdf.image(io.BytesIO(_qr_png(verify_url)), x=w - 70, y=135, w=42, h=42)
    pdf.set_font(fam, "", 8)
    pdf.set_xy(w - 90, 178)
    pdf.cell(82, 5, _txt("Scan to verify", uni), align="C")
    return bytes(pdf.output())


def _money(v: float) -> str:
    return f"INR {float(v):,.2f}"


def invoice_pdf(inv: dict, *, seller: dict) -> bytes:
    pdf, fam, uni = _new_pdf("P")
    pdf.set_font(fam, "B", 20)
    pdf.set_xy(15, 15)
    pdf.cell(180, 10, _txt("TAX INVOICE", uni))
    pdf.set_font(fam, "", 10)
    y = 30
    for line in [seller.get("name", ""), seller.get("address", ""),
                 f"GSTIN: {seller['gstin']}" if seller.get("gstin") else "", f"State: {seller.get('state', '')}"]:
        if line:
            pdf.set_xy(15, y)
            pdf.cell(100, 5, _txt(line, uni))
            y += 5
    pdf.set_font(fam, "B", 10)
    for i, (k, v) in enumerate([("Invoice No.", inv["number"]), ("Invoice Date", inv["invoice_date"]),
                                ("Payment ID", inv.get("payment_id") or "-")]):
        pdf.set_xy(120, 30 + i * 6)
        pdf.cell(35, 5, _txt(k, uni))
        pdf.set_font(fam, "", 10)
        pdf.cell(45, 5, _txt(v, uni))
        pdf.set_font(fam, "B", 10)
    pdf.set_xy(15, 60)
    pdf.cell(100, 6, _txt("Billed to", uni))
    pdf.set_font(fam, "", 10)
    y = 66
    for line in [inv.get("student_name"), inv.get("student_email"), inv.get("student_phone"),
                 f"Place of supply: {inv.get('student_state') or seller.get('state', '')}"]:
        if line:
            pdf.set_xy(15, y)
            pdf.cell(120, 5, _txt(line, uni))
            y += 5
    # items table
    y = 95
    pdf.set_fill_color(230, 236, 245)
    pdf.set_font(fam, "B", 10)
    pdf.set_xy(15, y)
    pdf.cell(120, 8, _txt("Description", uni), border=1, fill=True)
    pdf.cell(60, 8, _txt("Amount", uni), border=1, fill=True, align="R")
    pdf.set_font(fam, "", 10)
    rows = [(f"Internship programme: {inv['domain_name']} ({inv['duration']} month(s)) - SAC 999293",
             _money(inv.get("price", inv["amount"])))]
    if float(inv.get("discount") or 0):
        rows.append((f"Discount{' (' + inv['coupon_code'] + ')' if inv.get('coupon_code') else ''}",
                     "- " + _money(inv["discount"])))
    rows.append(("Taxable value", _money(inv["taxable_value"])))
    rate = float(inv["gst_rate"])
    if inv["tax_mode"] == "intra":
        rows += [(f"CGST @ {rate / 2:g}%", _money(inv["cgst"])), (f"SGST @ {rate / 2:g}%", _money(inv["sgst"]))]
    else:
        rows.append((f"IGST @ {rate:g}%", _money(inv["igst"])))
    for desc, amt in rows:
        y += 8
        pdf.set_xy(15, y)
        pdf.cell(120, 8, _txt(desc, uni), border=1)
        pdf.cell(60, 8, _txt(amt, uni), border=1, align="R")
    y += 8
    pdf.set_font(fam, "B", 11)
    pdf.set_xy(15, y)
    pdf.cell(120, 9, _txt("Total (tax inclusive)", uni), border=1, fill=True)
    pdf.cell(60, 9, _txt(_money(inv["amount"]), uni), border=1, fill=True, align="R")
    pdf.set_font(fam, "", 8)
    pdf.set_xy(15, y + 16)
    pdf.multi_cell(180, 4, _txt("This is a computer-generated invoice and does not require a signature. "
                                "Prices are inclusive of GST.", uni))
    return bytes(pdf.output())
