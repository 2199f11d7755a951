"""Rebuild ``layers/fonts/fonts/NotoSansCJKsc-Regular.subset.otf`` (the internships FontsLayer).

    python tools/subset_cjk_font.py /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc

(the collection from the Debian package ``fonts-noto-cjk``; OFL 1.1). Keeps the face "Noto Sans CJK SC",
the Unicode blocks below, no OpenType layout features, no hinting. Takes about a minute.
"""
from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

OUT = Path(__file__).resolve().parent.parent / "layers" / "fonts" / "fonts" / "NotoSansCJKsc-Regular.subset.otf"
BLOCKS = [(0x20, 0x7E), (0x1100, 0x11FF), (0x3000, 0x303F), (0x3040, 0x30FF), (0x3100, 0x312F), (0x3130, 0x318F),
          (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF),
          (0xFF00, 0xFFEF)]


def main(ttc: str) -> None:
    face = next(f for f in TTCollection(ttc).fonts if f["name"].getDebugName(1).startswith("Noto Sans CJK SC"))
    opts = subset.Options()
    opts.layout_features = []
    opts.name_IDs = ["*"]
    opts.notdef_outline = True
    opts.hinting = False
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=[u for lo, hi in BLOCKS for u in range(lo, hi + 1)])
    sub.subset(face)
    face.save(OUT)
    print(OUT, OUT.stat().st_size // 1024, "KB,", len(face.getGlyphOrder()), "glyphs")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
