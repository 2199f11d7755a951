"""Issue 31 item 4: invoices and certificates read right in every script, judged by outside tools.

pypdf extracts the text as a reader's tool does: every line of the buyer block (name, e-mail, phone,
place of supply) and of the seller block (legal name, address, GSTIN, state) is found, for buyers
named in Latin, Devanagari, Tamil, Bengali, Arabic and Chinese. On main the lines after a
non-Latin name came out as another font's glyphs (fpdf2 set the body font inside the name's own
``q … Q``). poppler's ``pdffonts`` finds every font embedded, ``qpdf --check`` finds no damage,
and ``pdftotext -bbox`` finds every word inside its table column (no overflow).

Name lines: pypdf writes a raw code (a C0 control character) for the extra glyphs of a shaped
cluster that carry no ToUnicode entry of their own, and keeps right-to-left words in their visual
order (it reorders characters inside a run, not the runs of a line), so a name line is compared
without C0 controls and, for Arabic, as its words in either order.
"""
from __future__ import annotations

import io
import re
import subprocess

import pytest

from tests.tooling import require_binary

NAMES = {
    "latin": "Ananya Sharma",
    "devanagari": "अनन्या शर्मा",
    "tamil": "கார்த்திக் சுப்பிரமணியன்",
    "bengali": "সৌমিত্র চট্টোপাধ্যায়",
    "arabic": "محمد علي",
    "chinese": "李雷",
}
SELLER = {"name": "Example Internships Private Limited", "address": "12 MG Road, Bengaluru, Karnataka 560001, India",
          "gstin": "29AABCE1234F1Z1", "state": "Karnataka"}
LONG_DOMAIN = "Full-Stack Web Development with Cloud-Native Microservices, DevOps and Site Reliability Engineering"


def _invoice(name: str, **over) -> dict:
    return {"number": "INV/25-26/000042", "invoice_date": "2025-06-01", "payment_id": "pay_Q1w2E3r4T5y6U7",
            "student_name": name, "student_email": "learner.one@example.com", "student_phone": "+91 98765 43210",
            "student_state": "Kerala", "domain_name": "Web Development", "duration": 2, "amount": 1180,
            "price": 1180, "discount": 0, "taxable_value": 1000, "gst_rate": 18, "tax_mode": "inter", "igst": 180,
            **over}


def _invoice_pdf(name: str, **over) -> bytes:
    from internships.documents.pdf import invoice_pdf

    return invoice_pdf(_invoice(name, **over), seller=SELLER)


def _certificate_pdf(name: str) -> bytes:
    from internships.documents.pdf import certificate_pdf

    cert = {"certificate_id": "CERT-25-ABCDEF", "student_name": name, "domain_name": "Web Development",
            "duration": 2, "issue_date": "2025-06-01"}
    return certificate_pdf(cert, verify_url="https://example.com/verify/CERT-25-ABCDEF", issuer=SELLER["name"])


def _lines(pdf: bytes) -> list[str]:
    from pypdf import PdfReader

    text = PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    return [line.strip() for line in text.splitlines() if line.strip()]


def _clean(line: str) -> str:
    return re.sub(r"[\x00-\x1f]", "", line).strip()


def _is_name_line(line: str, script: str) -> bool:
    got, want = _clean(line), NAMES[script]
    if script == "arabic":
        return sorted(got.split()) == sorted(want.split())
    return got == want


@pytest.mark.parametrize("script", list(NAMES))
def test_invoice_buyer_and_seller_blocks_read_back(script):
    lines = _lines(_invoice_pdf(NAMES[script]))
    # the buyer block: the name, then every line after it, exactly as written
    name_at = next((i for i, line in enumerate(lines) if _is_name_line(line, script)), None)
    assert name_at is not None, (script, lines)
    assert lines[name_at - 1] == "Billed to"
    assert lines[name_at + 1:name_at + 4] == ["learner.one@example.com", "+91 98765 43210", "Place of supply: Kerala"], \
        (script, lines)
    # the seller block (CGST Rules, rule 46) and the invoice's own fields
    for expected in (SELLER["name"], SELLER["address"], f"GSTIN: {SELLER['gstin']}", "State: Karnataka"):
        assert any(line.startswith(expected) for line in lines), (script, expected, lines)
    text = "\n".join(lines)
    for expected in ("TAX INVOICE", "INV/25-26/000042", "pay_Q1w2E3r4T5y6U7", "999293", "IGST @ 18%",
                     "INR 1,180.00", "INR 180.00", "Total (tax inclusive)"):
        assert expected in text, (script, expected)


@pytest.mark.parametrize("script", list(NAMES))
def test_certificate_reads_back_and_sets_the_name_in_bold(script):
    from pypdf import PdfReader

    pdf = _certificate_pdf(NAMES[script])
    page = PdfReader(io.BytesIO(pdf)).pages[0]
    runs: list[tuple[str, str]] = []

    def visit(text, cm, tm, font, size):
        if text.strip() and font is not None:
            runs.append((text, str(font.get("/BaseFont"))))

    lines = [line.strip() for line in page.extract_text(visitor_text=visit).splitlines() if line.strip()]
    at = next((i for i, line in enumerate(lines) if _is_name_line(line, script)), None)
    assert at is not None, (script, lines)
    assert lines[at - 1] == "This is to certify that"
    assert lines[at + 1] == "has successfully completed the 2-month internship programme in"
    assert lines[at + 2] == "Web Development"
    assert "Certificate ID: CERT-25-ABCDEF - Issued 2025-06-01" in lines
    assert SELLER["name"] in lines
    # every run of the name is drawn in a bold face, whatever its script (CJK included)
    name_runs = [(t, f) for t, f in runs if _clean(t) and _clean(t) in NAMES[script]]
    assert name_runs, (script, runs)
    assert all("Bold" in f for _, f in name_runs), (script, name_runs)


def test_a_name_in_several_scripts_keeps_the_next_lines():
    lines = _lines(_invoice_pdf("Ananya अनन्या 李 محمد"))
    at = next(i for i, line in enumerate(lines) if line.startswith("Ananya"))
    assert lines[at + 1:at + 4] == ["learner.one@example.com", "+91 98765 43210", "Place of supply: Kerala"]


def _words(pdf: bytes, tmp_path) -> list[tuple[str, float, float]]:
    """(word, xMin, xMax) in points, by poppler's pdftotext -bbox."""
    exe = require_binary("pdftotext", "poppler-utils")
    src = tmp_path / "doc.pdf"
    src.write_bytes(pdf)
    html = subprocess.run([exe, "-bbox", str(src), "-"], check=True, capture_output=True, text=True).stdout
    return [(w, float(x0), float(x1)) for x0, x1, w in
            re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>', html)]


def test_every_table_word_stays_in_its_column(tmp_path):
    """A long programme name wraps inside the description column; the SAC and the amounts stay in
    theirs (on main "SAC 999293" ran into the amount column)."""
    mm = 72 / 25.4
    desc, sac, amount = (15 * mm, 120 * mm), (120 * mm, 145 * mm), (145 * mm, 195 * mm)
    pdf = _invoice_pdf("Ananya Sharma", domain_name=LONG_DOMAIN, discount=100, coupon_code="WELCOME-MONSOON-2025")
    words = _words(pdf, tmp_path)
    domain_words = [(w, a, b) for w, a, b in words if w in LONG_DOMAIN.split()]
    assert len(domain_words) >= len(LONG_DOMAIN.split())
    for word, x0, x1 in domain_words:
        assert desc[0] <= x0 and x1 <= desc[1], (word, x0, x1)
    (x0, x1), = [(a, b) for w, a, b in words if w == "999293"]
    assert sac[0] <= x0 and x1 <= sac[1]
    for w, a, b in words:
        if w.startswith("1,") or w in ("1,180.00", "1,000.00", "180.00", "100.00"):
            assert amount[0] <= a and b <= amount[1], (w, a, b)


def test_long_buyer_values_shrink_inside_the_page(tmp_path):
    mail = "a.very.long.mailbox.name.for.testing.overflow@subdomain.of.an.example-university.ac.in"
    pdf = _invoice_pdf("Ananya Sharma", student_email=mail)
    assert mail in _lines(pdf)
    (x0, x1), = [(a, b) for w, a, b in _words(pdf, tmp_path) if w == mail]
    assert x1 <= 135 * 72 / 25.4  # its 120 mm cell from 15 mm


@pytest.mark.parametrize("kind", ["invoice", "certificate"])
def test_every_font_is_embedded_and_qpdf_finds_no_damage(kind, tmp_path):
    pdffonts = require_binary("pdffonts", "poppler-utils")
    qpdf = require_binary("qpdf")
    name = "Ananya अनन्या கார்த்திக் সৌমিত্র محمد 李雷"
    src = tmp_path / f"{kind}.pdf"
    src.write_bytes(_invoice_pdf(name) if kind == "invoice" else _certificate_pdf(name))
    table = subprocess.run([pdffonts, str(src)], check=True, capture_output=True, text=True).stdout.splitlines()[2:]
    fonts = {row.split()[0]: row.split() for row in table}
    families = {re.sub(r"^[A-Z]{6}\+", "", f) for f in fonts}
    for family in ("OpenSans", "NotoSansDevanagari", "NotoSansTamil", "NotoSansBengali", "NotoSansArabic",
                   "NotoSansCJKSC"):
        assert any(f.startswith(family) for f in families), (family, families)
    # columns: name type encoding emb sub uni object ID; every font embedded, subset, with ToUnicode
    for row in fonts.values():
        emb, sub, uni = row[-5:-2]
        assert (emb, sub, uni) == ("yes", "yes", "yes"), row
    check = subprocess.run([qpdf, "--check", str(src)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "No syntax or stream encoding errors found" in check.stdout


def test_a_long_issuer_line_stays_clear_of_the_qr_code(tmp_path):
    from internships.documents.pdf import certificate_pdf

    issuer = "Example Internships and Professional Skills Development Private Limited, Bengaluru Campus"
    cert = {"certificate_id": "CERT-25-ABCDEF", "student_name": "李雷", "domain_name": "Web Development",
            "duration": 2, "issue_date": "2025-06-01"}
    pdf = certificate_pdf(cert, verify_url="https://example.com/verify/CERT-25-ABCDEF", issuer=issuer)
    assert issuer in _lines(pdf)
    right = max(b for w, _, b in _words(pdf, tmp_path) if w in ("Professional", "Limited,", "Bengaluru", "Campus"))
    assert right <= (25 + 297 / 2) * 72 / 25.4  # its half-page cell; the QR code starts at 227 mm
