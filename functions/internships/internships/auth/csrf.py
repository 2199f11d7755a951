"""CSRF defence for cookie-authenticated unsafe requests (Bearer requests are exempt).

Accepted when the browser says the request is same-site (``Sec-Fetch-Site``), when
``Origin`` is one of ours, or when the double-submit header ``X-CSRF-Token`` equals the
``csrf-token`` cookie set at sign-in.
"""
from __future__ import annotations

from urllib.parse import urlsplit

from lambdakit.errors import Forbidden
from lambdakit.http import cookies, header
from lambdakit.security import constant_time_equals

from ..settings import settings

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CSRF_COOKIE = "csrf-token"
CSRF_HEADER = "x-csrf-token"


def _origin_of(url: str) -> str | None:
    try:
        p = urlsplit(url.strip())
    except ValueError:
        return None
    if p.scheme not in ("http", "https") or not p.hostname:
        return None
    return f"{p.scheme}://{p.netloc}".lower()


def trusted_origins(host: str | None = None) -> set[str]:
    s = settings()
    out = {o for o in (_origin_of(u) for u in [s.frontend_url, s.public_base_url, *s.trusted_origins.split(",")]
                       if u and u.strip()) if o}
    if host:
        out |= {f"https://{host.lower()}", f"http://{host.lower()}"} if s.is_local else {f"https://{host.lower()}"}
    return out


def check(app) -> None:
    """Raise ``Forbidden`` unless this cookie-authenticated request is same-site or double-submitted."""
    sfs = (header(app, "sec-fetch-site") or "").lower()
    if sfs in ("same-origin", "same-site"):
        return
    origin = header(app, "origin")
    if origin and sfs != "cross-site":
        o = _origin_of(origin)
        if o and o in trusted_origins(header(app, "host")):
            return
    sent = header(app, CSRF_HEADER)
    cookie = cookies(app).get(CSRF_COOKIE)
    if sent and cookie and len(cookie) >= 16 and constant_time_equals(sent, cookie):
        return
    raise Forbidden("CSRF check failed")
