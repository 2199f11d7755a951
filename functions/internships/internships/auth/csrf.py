"""CSRF defence for cookie-authenticated unsafe requests (Bearer requests are exempt).

Accepted when the browser says the request is same-origin (``Sec-Fetch-Site``), when
``Origin`` is one of ours, or when the double-submit header ``X-CSRF-Token`` equals the
``csrf-token`` cookie set at sign-in.

``Sec-Fetch-Site: same-site`` alone is not proof (issue 32 item 11): any sibling subdomain of
the registrable domain is "same site", so a takeover of ``blog.example.com`` would pass. A
same-site request passes only when ``INTERNSHIPS_CSRF_SAME_SITE_ORIGINS`` lists sibling origins
and its ``Origin`` is one of them (or one of our trusted origins).
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


def same_site_origins() -> set[str]:
    """Sibling origins a ``Sec-Fetch-Site: same-site`` request may come from (empty: none)."""
    return {o for o in (_origin_of(u) for u in settings().csrf_same_site_origins.split(",") if u.strip()) if o}


def check(app) -> None:
    """Raise ``Forbidden`` unless this cookie-authenticated request is same-origin, from one of
    our (or listed sibling) origins, or double-submitted."""
    sfs = (header(app, "sec-fetch-site") or "").lower()
    if sfs == "same-origin":
        return
    origin = header(app, "origin")
    o = _origin_of(origin) if origin else None
    if o and sfs == "same-site" and o in same_site_origins():
        return
    if o and sfs != "cross-site" and o in trusted_origins(header(app, "host")):
        return
    sent = header(app, CSRF_HEADER)
    cookie = cookies(app).get(CSRF_COOKIE)
    if sent and cookie and len(cookie) >= 16 and constant_time_equals(sent, cookie):
        return
    raise Forbidden("CSRF check failed")
