"""Issue #19 item 4: certificates and invoices draw every learner's name, whatever its script.

Each name is rendered into a certificate, the page rasterised (pypdfium2) and compared with the same
certificate without a name: the difference is the name's ink, which must exist, sit in the name's
line and be centred. fpdf2's missing-glyph warning is an error here (``strict_glyphs``)."""
from __future__ import annotations

import pytest

NAMES = {
    "latin": "Ananya Sharma",
    "devanagari": "अनन्या शर्मा",
    "bengali": "সৌমিত্র চট্টোপাধ্যায়",
    "gujarati": "હાર્દિક પટેલ",
    "tamil": "கார்த்திக் சுப்பிரமணியன்",
    "telugu": "శ్రీనివాస్ రెడ్డి",
    "kannada": "ಪ್ರಕಾಶ್ ಗೌಡ",
    "malayalam": "അനന്തകൃഷ്ണൻ നായർ",
    "chinese": "李雷",
    "japanese": "山田 さくら",
    "korean": "김민준",
    "arabic": "محمد علي",
    "mixed": "Ananya अनन्या 李",
}
DPI = 60


def _cert(name: str, **over) -> dict:
    return {"certificate_id": "CERT-25-ABCDEF", "student_name": name, "domain_name": "Web Development",
            "duration": 2, "issue_date": "2025-06-01", **over}


def _certificate(name: str) -> bytes:
    from internships.documents.pdf import certificate_pdf

    return certificate_pdf(_cert(name), verify_url="https://example.com/verify/CERT-25-ABCDEF",
                           issuer="Example Academy")


def _raster(pdf: bytes):
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        return doc[0].render(scale=DPI / 72).to_pil().convert("L")
    finally:
        doc.close()


def _ink_box(a, b):
    """Bounding box (left, top, right, bottom) of the pixels where two renderings differ."""
    from PIL import ImageChops

    return ImageChops.difference(a, b).point(lambda v: 255 if v > 40 else 0).getbbox()


@pytest.fixture(scope="module")
def blank():
    return _raster(_certificate(""))


def _dark_box(img, rows: tuple[int, int], margin: int = 40):
    """Bounding box of the dark pixels of ``img`` within ``rows`` (inside the page border)."""
    w, _ = img.size
    return img.crop((margin, rows[0], w - margin, rows[1])).point(lambda v: 255 if v < 128 else 0).getbbox()


@pytest.fixture(scope="module")
def name_rows(blank):
    """The empty rows between the subtitle and the body line, where the name (and only it) is drawn."""
    latin = _ink_box(blank, _raster(_certificate("Ananya Sharma")))
    w, h = blank.size
    px = blank.load()

    def inked(y):
        return any(px[x, y] < 128 for x in range(40, w - 40))

    top = latin[1]
    while not inked(top - 1):
        top -= 1
    bottom = latin[3]
    while not inked(bottom + 1):
        bottom += 1
    return top, bottom


@pytest.mark.parametrize("script", list(NAMES))
def test_every_script_draws_the_name_centred(script, name_rows, strict_glyphs, caplog):
    pdf = _certificate(NAMES[script])
    assert "without glyphs" not in caplog.text
    img = _raster(pdf)
    box = _dark_box(img, name_rows)
    assert box, f"{script}: the name left no ink"
    left, top, right, bottom = box
    w = img.size[0]
    # clear of the lines above and below, visibly wide, centred on the page (within 1% of the width)
    assert top > 0 and bottom < name_rows[1] - name_rows[0], (script, box, name_rows)
    assert right - left > 20
    centre = 40 + (left + right) / 2
    assert abs(centre - w / 2) <= w * 0.01, (script, centre, w)


def test_shaping_forms_conjuncts_and_joins_arabic(blank, strict_glyphs, monkeypatch):
    """HarfBuzz is on: Devanagari conjuncts and joined Arabic differ from the unshaped glyph run."""
    from fpdf import FPDF

    shaped = {s: _raster(_certificate(NAMES[s])) for s in ("devanagari", "arabic", "tamil")}
    monkeypatch.setattr(FPDF, "set_text_shaping", lambda self, *a, **k: None)
    for script, img in shaped.items():
        plain = _raster(_certificate(NAMES[script]))
        assert _ink_box(plain, img), f"{script}: shaping changed nothing"


def test_latin_only_documents_load_no_fallback_font(strict_glyphs):
    from internships.documents import typefaces

    assert typefaces.scripts_in(["Ananya Sharma", "Zoë Ångström", "Ωμέγα Жанна"]) == []
    fams = [s.family for s in typefaces.scripts_in([NAMES["mixed"], NAMES["arabic"]])]
    assert fams == ["NotoDeva", "NotoArab", "NotoCJK"]


def test_every_shipped_font_exists_and_covers_its_script():
    from fontTools.ttLib import TTFont

    from internships.documents import typefaces

    for s in typefaces.SCRIPTS:
        for f in filter(None, (s.regular, s.bold)):
            cmap = TTFont(typefaces.FONT_DIR / f, lazy=True).getBestCmap()
            sample = [ch for name in NAMES.values() for ch in name
                      if any(lo <= ord(ch) <= hi for lo, hi in s.ranges)]
            assert sample, s.family
            assert all(ord(ch) in cmap for ch in sample), (f, [ch for ch in sample if ord(ch) not in cmap])


@pytest.mark.parametrize("script", ["devanagari", "tamil", "chinese", "arabic"])
def test_invoice_draws_the_name(script, strict_glyphs):
    from internships.documents.pdf import invoice_pdf

    def inv(name):
        return {"number": "INV/25-26/000001", "invoice_date": "2025-06-01", "student_name": name,
                "student_email": "a@example.com", "domain_name": "Web Development", "duration": 1, "amount": 1180,
                "price": 1180, "taxable_value": 1000, "gst_rate": 18, "tax_mode": "intra", "cgst": 90, "sgst": 90}

    seller = {"name": "Example Academy", "address": "Bengaluru", "state": "Karnataka"}
    box = _ink_box(_raster(invoice_pdf(inv(""), seller=seller)), _raster(invoice_pdf(inv(NAMES[script]), seller=seller)))
    assert box and box[2] - box[0] > 10


@pytest.mark.allow_missing_glyphs
def test_unrenderable_name_fails_loudly_in_tests_but_still_issues_in_production(caplog, metrics):
    thai = "สมชาย ใจดี"  # Thai: no shipped font has it
    pdf = _certificate(thai)  # production: issued all the same ...
    assert pdf.startswith(b"%PDF")
    assert "without glyphs" in caplog.text and "THAI" in caplog.text and thai not in caplog.text
    assert ("PdfGlyphsMissing", 9, {}) in metrics  # ... with a warning and a metric


def test_unrenderable_name_is_an_error_under_strict_glyphs(strict_glyphs):
    with pytest.raises(strict_glyphs):
        _certificate("สมชาย ใจดี")


def test_save_pngs_for_review(tmp_path_factory):
    """Not an assertion: writes the PNGs (``pytest --basetemp``) for a human to look at."""
    out = tmp_path_factory.mktemp("certs")
    for script in ("devanagari", "arabic", "tamil", "mixed"):
        _raster(_certificate(NAMES[script])).save(out / f"{script}.png")
    assert len(list(out.iterdir())) == 4
