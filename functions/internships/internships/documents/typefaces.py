"""Fonts of the certificate and invoice PDFs: every learner's name must come out drawn.

The body font is Open Sans (Latin, Greek, Cyrillic, Vietnamese; PyPI ``ttf-opensans``). The scripts it
lacks come from the Noto fonts of the FontsLayer (``layers/fonts/fonts/``) (SIL Open Font License 1.1, see
``fonts/OFL.txt`` and ``fonts/README.md``): Devanagari, Bengali, Gujarati, Tamil, Telugu, Kannada,
Malayalam and Arabic (regular and bold), and CJK (Chinese, Japanese kana, Korean hangul; regular and
bold, subsets of Noto Sans CJK SC to the CJK blocks, ``tools/subset_cjk_font.py``): a name is bold on a
certificate in every script (issue 31 item 4). fpdf2 picks, character by
character, the first fallback font that has the glyph (``set_fallback_fonts``), and HarfBuzz
(``uharfbuzz``) shapes Indic conjuncts and joins right-to-left Arabic (``set_text_shaping``).

Fonts are loaded lazily, per document: only the scripts that occur in its text are registered (a
Latin-only certificate parses no extra font, so neither cold start nor render time grows), and
shaping is switched on only for the scripts that need it.

A character no shipped font has is still written (as fpdf2's empty box): the document is issued, a
warning is logged (the scripts, never the text) and the ``PdfGlyphsMissing`` metric counts it.
"""
from __future__ import annotations

import logging
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

#: The Noto fonts: on Lambda the FontsLayer's ``/opt/fonts`` (only the functions that draw PDFs have
#: it, issue 33); in the repository (local runtime, tests) the layer's source, ``layers/fonts/fonts``.
_LAYER_FONT_DIR = Path("/opt/fonts")
FONT_DIR = (_LAYER_FONT_DIR if _LAYER_FONT_DIR.is_dir()
            else Path(__file__).resolve().parents[4] / "layers" / "fonts" / "fonts")
logger = logging.getLogger("internships.documents")


@dataclass(frozen=True)
class Script:
    family: str
    ranges: tuple[tuple[int, int], ...]
    regular: str
    bold: str | None
    shaping: bool  # needs HarfBuzz (conjuncts, joining, right-to-left)


def _noto(name: str, family: str, ranges: tuple[tuple[int, int], ...], shaping: bool = True) -> Script:
    return Script(family, ranges, f"NotoSans{name}-Regular.ttf", f"NotoSans{name}-Bold.ttf", shaping)


SCRIPTS: tuple[Script, ...] = (
    _noto("Devanagari", "NotoDeva", ((0x0900, 0x097F), (0xA8E0, 0xA8FF), (0x1CD0, 0x1CFF), (0x20B9, 0x20B9))),
    _noto("Bengali", "NotoBeng", ((0x0980, 0x09FF),)),
    _noto("Gujarati", "NotoGujr", ((0x0A80, 0x0AFF),)),
    _noto("Tamil", "NotoTaml", ((0x0B80, 0x0BFF), (0x11FC0, 0x11FFF))),
    _noto("Telugu", "NotoTelu", ((0x0C00, 0x0C7F),)),
    _noto("Kannada", "NotoKnda", ((0x0C80, 0x0CFF),)),
    _noto("Malayalam", "NotoMlym", ((0x0D00, 0x0D7F),)),
    _noto("Arabic", "NotoArab", ((0x0600, 0x06FF), (0x0750, 0x077F), (0x08A0, 0x08FF), (0xFB50, 0xFDFF),
                                 (0xFE70, 0xFEFF))),
    Script("NotoCJK", ((0x1100, 0x11FF), (0x3000, 0x303F), (0x3040, 0x30FF), (0x3100, 0x312F), (0x3130, 0x318F),
                       (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF),
                       (0xFF00, 0xFFEF)),
           "NotoSansCJKsc-Regular.subset.otf", "NotoSansCJKsc-Bold.subset.otf", False),
)


def scripts_in(texts: Iterable[str]) -> list[Script]:
    """The fallback scripts the texts use, in ``SCRIPTS`` order (Latin-only text: none)."""
    cps = {ord(ch) for t in texts for ch in str(t) if ord(ch) > 0x2FF}
    if not cps:
        return []
    return [s for s in SCRIPTS if any(lo <= cp <= hi for cp in cps for lo, hi in s.ranges)]


def register(pdf: Any, texts: Iterable[str]) -> list[str]:
    """Add the fallback fonts (and shaping) the texts need to an fpdf2 document; their family names."""
    scripts = scripts_in(texts)
    for s in scripts:
        pdf.add_font(s.family, "", str(FONT_DIR / s.regular))
        if s.bold:
            pdf.add_font(s.family, "B", str(FONT_DIR / s.bold))
    if scripts:
        # every script ships both weights; exact_match=False only keeps a font that lacked one usable
        pdf.set_fallback_fonts([s.family for s in scripts], exact_match=False)
    if any(s.shaping for s in scripts):
        pdf.set_text_shaping(True)
    return [s.family for s in scripts]


def missing_glyphs(pdf: Any) -> list[int]:
    """Code points some text asked for but no registered font could draw (after ``pdf.output()``)."""
    out: set[int] = set()
    for font in getattr(pdf, "fonts", {}).values():
        out.update(getattr(font, "missing_glyphs", None) or ())
    return sorted(cp for cp in out if not unicodedata.category(chr(cp)).startswith(("C", "Z")))


def report_missing(pdf: Any, document: str) -> list[int]:
    """Log and count the characters a rendered document could not draw; never fails the document."""
    missing = missing_glyphs(pdf)
    if missing:
        from lambdakit.observability import count

        # the scripts only (first word of the Unicode names), never the characters of a name
        scripts = sorted({unicodedata.name(chr(cp), "UNKNOWN").split(" ")[0] for cp in missing})
        logger.warning("PDF %s rendered without glyphs for %d character(s) of script(s) %s", document,
                       len(missing), ", ".join(scripts))
        count("PdfGlyphsMissing", len(missing))
    return missing
