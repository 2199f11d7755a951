"""Rebuild ``layers/fonts/fonts/NotoSansCJKsc-{Regular,Bold}.subset.otf`` (the internships FontsLayer).

    python tools/subset_cjk_font.py            # both weights
    python tools/subset_cjk_font.py Bold       # one weight
    python tools/subset_cjk_font.py Regular /path/to/NotoSansCJK-Regular.ttc

(the collections from the Debian package ``fonts-noto-cjk``; OFL 1.1). Keeps the face "Noto Sans CJK SC",
the Unicode blocks below, no OpenType layout features, no hinting. Takes about a minute per weight.
Both weights keep the same blocks, so a name drawn in the bold weight (certificates) has a glyph
wherever the regular weight has one.
"""
from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

FONTS = Path(__file__).resolve().parent.parent / "layers" / "fonts" / "fonts"
SYSTEM = "/usr/share/fonts/opentype/noto/NotoSansCJK-{weight}.ttc"
WEIGHTS = ("Regular", "Bold")
BLOCKS = [(0x20, 0x7E), (0x1100, 0x11FF), (0x3000, 0x303F), (0x3040, 0x30FF), (0x3100, 0x312F), (0x3130, 0x318F),
          (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF),
          (0xFF00, 0xFFEF)]


def out_path(weight: str) -> Path:
    return FONTS / f"NotoSansCJKsc-{weight}.subset.otf"


def build(weight: str, ttc: str) -> None:
    face = next(f for f in TTCollection(ttc).fonts if f["name"].getDebugName(1).startswith("Noto Sans CJK SC"))
    opts = subset.Options()
    opts.layout_features = []
    opts.name_IDs = ["*"]
    opts.notdef_outline = True
    opts.hinting = False
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=[u for lo, hi in BLOCKS for u in range(lo, hi + 1)])
    sub.subset(face)
    out = out_path(weight)
    face.save(out)
    print(out, out.stat().st_size // 1024, "KB,", len(face.getGlyphOrder()), "glyphs")


def main(argv: list[str]) -> None:
    weights = [argv[0]] if argv else list(WEIGHTS)
    for weight in weights:
        if weight not in WEIGHTS:
            raise SystemExit(f"weight must be one of {', '.join(WEIGHTS)}")
        build(weight, argv[1] if len(argv) > 1 else SYSTEM.format(weight=weight))


if __name__ == "__main__":
    main(sys.argv[1:])
