"""PDF rendering with fpdf2 (imported lazily) and Unicode TTF fonts, so every learner's name renders.

The body font ships in the ``ttf-opensans`` PyPI package (Latin, Greek, Cyrillic, Vietnamese). Where that
package is missing (a developer machine) a system DejaVu Sans is used, and as a last resort the core
Helvetica font with unsupported characters replaced. Other scripts (Indic, Arabic, CJK) come from the
Noto fallback fonts of ``typefaces`` (loaded only when the document's text uses them, shaped by HarfBuzz).

Font state (issue 31 item 4): fpdf2 2.8 sets the page font lazily. When the first run of a line is
drawn in a fallback font, it sets the body font inside that line's own ``q … Q`` block and then
believes the body font is set on the page; after the ``Q`` the page is back in the previous font,
so the next lines were written with the wrong font's glyph ids (the e-mail, phone and place of
supply under a Devanagari, Tamil, Bengali, Arabic or Chinese name). ``_document_class`` fixes it
where every line is drawn: after each line, whatever fonts its runs used, the page font counts as
unknown, so the next line states its font again (one ``Tf`` more per line). Cells never overflow:
single-line values shrink to fit (``_fit``), table cells and addresses wrap (``_row``).
"""
from __future__ import annotations

import functools
import io
from pathlib import Path
from typing import Any

from . import typefaces

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
    for reg_file, bold_file in _SYSTEM_FONTS:
        if Path(reg_file).exists() and Path(bold_file).exists():
            return reg_file, bold_file
    return None


@functools.cache
def _document_class() -> Any:
    """fpdf2's FPDF, with the page font re-stated after every line (see the module docstring)."""
    from fpdf import FPDF

    class DocumentPDF(FPDF):
        def _render_styled_text_line(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return super()._render_styled_text_line(*args, **kwargs)
            finally:
                # a run of the line may have set a font inside the line's own q…Q: after the Q the
                # page's font is not what fpdf2 believes, so the next line must state its own
                self.current_font_is_set_on_page = False

    return DocumentPDF


def _new_pdf(orientation: str, texts: list[str]):
    """A page with the body font and the fallback fonts ``texts`` (everything it will draw) need."""
    pdf = _document_class()(orientation=orientation, unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    files = font_files()
    if files:
        pdf.add_font("Body", "", files[0])
        pdf.add_font("Body", "B", files[1])
        family = "Body"
        typefaces.register(pdf, texts)
    else:  # pragma: no cover - only without any TTF available
        family = "Helvetica"
    pdf.add_page()
    return pdf, family, files is not None


def _texts(*records: dict | None) -> list[str]:
    return [v for r in records for v in (r or {}).values() if isinstance(v, str)]


def _output(pdf, document: str) -> bytes:
    data = bytes(pdf.output())
    typefaces.report_missing(pdf, document)
    return data


def _txt(s: str, unicode_ok: bool) -> str:
    s = str(s if s is not None else "")
    return s if unicode_ok else s.encode("latin-1", "replace").decode("latin-1")


def _qr_png(data: str) -> bytes:
    import qrcode

    img = qrcode.make(data, box_size=8, border=2)
    buf = io.BytesIO()
    img.save(buf)
    return buf.getvalue()


DEFAULT_LAYOUT = {
    "orientation": "landscape", "background_color": "#FFFFFF", "accent_color": "#1E4078", "text_color": "#222222",
    "title": "Certificate of Completion", "subtitle": "This is to certify that",
    "body": "has successfully completed the {duration}-month internship programme in",
    "signature_name": "", "signature_title": "", "footer": "Certificate ID: {certificateId} - Issued {issueDate}",
    "show_qr": True, "border": True, "name_and_domain": True,
}


def _rgb(hex_color: str) -> tuple[int, int, int]:
    h = (hex_color or "#000000").lstrip("#")
    try:
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
    except (ValueError, IndexError):
        return 0, 0, 0


def _fill(text: str, values: dict) -> str:
    import re

    return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), "")), text or "")


def certificate_pdf(c: dict, *, verify_url: str, issuer: str, layout: dict | None = None) -> bytes:
    """Render a certificate. ``layout`` is an admin certificate template's layout (ADMIN's
    ``CertificateLayout`` fields); its text may use {studentName}, {domainName}, {duration},
    {issueDate}, {certificateId}, {expiryAt}. The font is always the Unicode TTF."""
    lay = {**DEFAULT_LAYOUT, **(layout or {})}
    if layout:  # an admin template's body already names the student and the domain
        lay["name_and_domain"] = False
    values = {"studentName": c["student_name"], "domainName": c["domain_name"], "duration": c["duration"],
              "issueDate": c["issue_date"], "certificateId": c["certificate_id"],
              "expiryAt": str(c.get("expiry_at") or "")[:10]}
    portrait = lay["orientation"] == "portrait"
    pdf, fam, uni = _new_pdf("P" if portrait else "L", _texts(c, lay, {"issuer": issuer}))
    w, h = (210, 297) if portrait else (297, 210)
    accent, text = _rgb(lay["accent_color"]), _rgb(lay["text_color"])
    if lay["background_color"].upper() != "#FFFFFF":
        pdf.set_fill_color(*_rgb(lay["background_color"]))
        pdf.rect(0, 0, w, h, style="F")
    if lay["border"]:
        pdf.set_draw_color(*accent)
        pdf.set_line_width(2)
        pdf.rect(8, 8, w - 16, h - 16)
        pdf.set_line_width(0.5)
        pdf.rect(12, 12, w - 24, h - 24)
    y = 30 if not portrait else 45
    pdf.set_text_color(*accent)
    pdf.set_font(fam, "B", 30 if not portrait else 24)
    pdf.set_xy(15, y)
    pdf.multi_cell(w - 30, 14, _txt(_fill(lay["title"], values), uni), align="C")
    y = pdf.get_y() + 8
    pdf.set_text_color(*text)
    pdf.set_font(fam, "", 14)
    pdf.set_xy(20, y)
    pdf.multi_cell(w - 40, 8, _txt(_fill(lay["subtitle"], values), uni), align="C")
    y = pdf.get_y() + 4
    if lay["name_and_domain"]:
        pdf.set_font(fam, "B", 28)
        pdf.set_xy(20, y)
        pdf.multi_cell(w - 40, 14, _txt(c["student_name"], uni), align="C")
        y = pdf.get_y() + 4
    pdf.set_font(fam, "", 14)
    pdf.set_xy(30, y)
    pdf.multi_cell(w - 60, 8, _txt(_fill(lay["body"], values), uni), align="C")
    y = pdf.get_y() + 6
    if lay["name_and_domain"]:
        pdf.set_font(fam, "B", 20)
        pdf.set_text_color(*accent)
        pdf.set_xy(20, y)
        pdf.multi_cell(w - 40, 12, _txt(c["domain_name"], uni), align="C")
    pdf.set_text_color(*text)
    pdf.set_font(fam, "", 11)
    base = h - 60
    lines = [_fill(lay["footer"], values)]
    if c.get("expiry_at"):
        lines.append(f"Valid until: {values['expiryAt']}")
    if lay["signature_name"]:
        lines += ["", lay["signature_name"], lay["signature_title"]]
    lines.append(issuer)
    for i, line in enumerate(lines):  # clear of the QR code: a long line shrinks to its half page
        pdf.set_font(fam, "", 11)
        pdf.set_xy(25, base + i * 7)
        _fit(pdf, w / 2, 7, _txt(line, uni))
    if lay["show_qr"]:
        pdf.image(io.BytesIO(_qr_png(verify_url)), x=w - 70, y=h - 75, w=42, h=42)
        pdf.set_font(fam, "", 8)
        pdf.set_xy(w - 90, h - 32)
        pdf.cell(82, 5, _txt("Scan to verify", uni), align="C")
    return _output(pdf, "certificate")


def _money(v: float) -> str:
    return f"INR {float(v):,.2f}"


def _fit(pdf, w: float, h: float, text: str, *, align: str = "L", border: int = 0, fill: bool = False,
         min_size: float = 6) -> None:
    """One line in a ``w`` mm cell: the font shrinks (down to ``min_size`` pt) until the text fits."""
    size = pdf.font_size_pt
    room = w - 2 * pdf.c_margin
    while size > min_size and pdf.get_string_width(text) > room:
        size -= 0.5
        pdf.set_font_size(size)
    pdf.cell(w, h, text, border=border, fill=fill, align=align)


def _row(pdf, y: float, cols: list[tuple[float, str, str]], *, line_h: float, fill: bool = False,
         pad: float = 1.2) -> float:
    """A table row of bordered cells whose text wraps inside its column (``cols``: width, text,
    alignment); every cell as tall as the tallest. Returns the y below the row."""
    lines = max(len(pdf.multi_cell(w, line_h, t, dry_run=True, output="LINES") or [""]) for w, t, _ in cols)
    height = lines * line_h + 2 * pad
    x = 15.0
    for w, t, align in cols:
        pdf.rect(x, y, w, height, style="DF" if fill else "D")
        pdf.set_xy(x, y + pad)
        pdf.multi_cell(w, line_h, t, align=align)
        x += w
    return y + height


#: Services Accounting Code of the programme (commercial training or coaching services).
SAC = "999293"


def invoice_pdf(inv: dict, *, seller: dict) -> bytes:
    """A GST tax invoice (CGST Rules, rule 46): the supplier's legal name, address, GSTIN and
    state, the invoice number and date, the recipient with the place of supply, the SAC, the
    taxable value and the tax lines. ``seller``: ``name``, ``address``, ``gstin``, ``state``."""
    pdf, fam, uni = _new_pdf("P", _texts(inv, seller))
    pdf.set_font(fam, "B", 20)
    pdf.set_xy(15, 15)
    pdf.cell(180, 10, _txt("TAX INVOICE", uni))
    # the supplier (left, wrapping) and the invoice (right, values shrink to their column)
    pdf.set_font(fam, "B", 11)
    pdf.set_xy(15, 30)
    pdf.multi_cell(100, 5.5, _txt(seller.get("name", ""), uni))
    pdf.set_font(fam, "", 10)
    for line in [seller.get("address", ""), f"GSTIN: {seller.get('gstin') or ''}", f"State: {seller.get('state', '')}"]:
        pdf.set_x(15)
        pdf.multi_cell(100, 5, _txt(line, uni))
    y_seller = pdf.get_y()
    for i, (k, v) in enumerate([("Invoice No.", inv["number"]), ("Invoice Date", inv["invoice_date"]),
                                ("Payment ID", inv.get("payment_id") or "-")]):
        pdf.set_font(fam, "B", 10)
        pdf.set_xy(120, 30 + i * 6)
        pdf.cell(30, 5, _txt(k, uni))
        pdf.set_font(fam, "", 10)
        _fit(pdf, 45, 5, _txt(v, uni))
    # the recipient
    y = max(y_seller, 48.0) + 6
    pdf.set_font(fam, "B", 10)
    pdf.set_xy(15, y)
    pdf.cell(100, 6, _txt("Billed to", uni))
    y += 6
    for line in [inv.get("student_name"), inv.get("student_email"), inv.get("student_phone"),
                 f"Place of supply: {inv.get('student_state') or seller.get('state', '')}"]:
        if line:
            pdf.set_font(fam, "", 10)
            pdf.set_xy(15, y)
            _fit(pdf, 120, 5, _txt(line, uni))
            y += 5
    # items: description (wraps), SAC, amount
    y += 8
    widths = (105.0, 25.0, 50.0)
    pdf.set_fill_color(230, 236, 245)
    pdf.set_font(fam, "B", 10)
    y = _row(pdf, y, [(widths[0], _txt("Description", uni), "L"), (widths[1], "SAC", "C"),
                      (widths[2], _txt("Amount", uni), "R")], line_h=5.5, fill=True)
    pdf.set_font(fam, "", 10)
    rows = [(f"Internship programme: {inv['domain_name']} ({inv['duration']} month(s))", SAC,
             _money(inv.get("price", inv["amount"])))]
    if float(inv.get("discount") or 0):
        rows.append((f"Discount{' (' + inv['coupon_code'] + ')' if inv.get('coupon_code') else ''}", "",
                     "- " + _money(inv["discount"])))
    rows.append(("Taxable value", "", _money(inv["taxable_value"])))
    rate = float(inv["gst_rate"])
    if inv["tax_mode"] == "intra":
        rows += [(f"CGST @ {rate / 2:g}%", "", _money(inv["cgst"])), (f"SGST @ {rate / 2:g}%", "", _money(inv["sgst"]))]
    else:
        rows.append((f"IGST @ {rate:g}%", "", _money(inv["igst"])))
    for desc, sac, amt in rows:
        y = _row(pdf, y, [(widths[0], _txt(desc, uni), "L"), (widths[1], sac, "C"),
                          (widths[2], _txt(amt, uni), "R")], line_h=5.5)
    pdf.set_font(fam, "B", 11)
    y = _row(pdf, y, [(widths[0] + widths[1], _txt("Total (tax inclusive)", uni), "L"),
                      (widths[2], _txt(_money(inv["amount"]), uni), "R")], line_h=6, fill=True)
    pdf.set_font(fam, "", 8)
    pdf.set_xy(15, y + 8)
    pdf.multi_cell(180, 4, _txt("This is a computer-generated invoice and does not require a signature. "
                                "Prices are inclusive of GST.", uni))
    return _output(pdf, "invoice")
