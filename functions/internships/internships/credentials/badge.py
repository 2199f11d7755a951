"""The badge image: a PNG with the credential baked in, as Open Badges 3.0 "Baking" describes for
PNG: one ``iTXt`` chunk with the keyword ``openbadgecredential``, no compression, whose text is the
credential — here its VC-JWT (compact JWS), the form the spec gives for a JWT-secured credential.
Pillow (in the layer) is imported only here, on the first badge request.
"""
from __future__ import annotations

import io

KEYWORD = "openbadgecredential"
SIZE = 400


def baked_png(token: str, *, title: str, subtitle: str, issuer: str) -> bytes:
    from PIL import Image, ImageDraw, ImageFont
    from PIL.PngImagePlugin import PngInfo

    img = Image.new("RGB", (SIZE, SIZE), (255, 255, 255))
    d = ImageDraw.Draw(img)
    d.ellipse((20, 20, SIZE - 20, SIZE - 20), fill=(24, 62, 120), outline=(212, 175, 55), width=10)
    d.ellipse((60, 60, SIZE - 60, SIZE - 60), outline=(212, 175, 55), width=3)
    for text, y, size in ((issuer[:28], 120, 18), (title[:22], 185, 30), (subtitle, 250, 18)):
        font = ImageFont.load_default(size=size)
        w = d.textlength(text, font=font)
        d.text(((SIZE - w) / 2, y), text, fill=(255, 255, 255), font=font)
    info = PngInfo()
    info.add_itxt(KEYWORD, token, lang="", tkey="", zip=False)
    out = io.BytesIO()
    img.save(out, format="PNG", pnginfo=info, optimize=True)
    return out.getvalue()
