"""Base URLs of the links internships mail carries (issue 33: a deployed stage never sends a link it
cannot resolve; the rule is ``lambdakit.baseurl``, shared with campaigns).

The API base is ``INTERNSHIPS_PUBLIC_BASE_URL`` (the ``PublicBaseUrl`` parameter), else the SSM
parameter ``make base-url`` writes (``INTERNSHIPS_PUBLIC_BASE_URL_PARAMETER``); the site base (links
people follow: dashboard, set-password, certificate verification) is ``INTERNSHIPS_FRONTEND_URL``,
else the API base. The mail worker resolves them when it renders (``absolute``): a mail whose links
cannot resolve yet is held (retried, never sent, never failed for it) and ``GET /api/health`` says
why. Links built earlier by a request while no base was configured are site-relative paths
(``/reset-password?...``): they are made absolute at render time, so they resolve too.
"""
from __future__ import annotations

from lambdakit import baseurl

from .settings import settings

#: Mail data holding links on the site base (a value starting with ``/`` is a path on it).
SITE_LINK_KEYS = ("dashboardUrl", "resetUrl", "verifyUrl")


def api_base() -> str:
    s = settings()
    return baseurl.resolve(s.public_base_url, s.public_base_url_parameter)


def site_base() -> str:
    front = settings().frontend_url.strip()
    if front:
        if not baseurl.usable(front):
            raise baseurl.BaseUrlNotSet(f"Mail is held: the front-end URL {front[:100]!r} is not an absolute http(s) URL")
        return front.rstrip("/")
    return api_base()


def absolute(data: dict) -> dict:
    """``data`` with each site link that is a path made absolute (``BaseUrlNotSet`` when it cannot be)."""
    base = site_base()
    return {k: (base + v if k in SITE_LINK_KEYS and isinstance(v, str) and v.startswith("/") else v)
            for k, v in data.items()}


def problem() -> str | None:
    """Why mail is held now (the health route), ``None`` when links resolve."""
    s = settings()
    front = s.frontend_url.strip()
    if front and not baseurl.usable(front):
        return f"the front-end URL {front[:100]!r} is not an absolute http(s) URL"
    return baseurl.problem(s.public_base_url, s.public_base_url_parameter)
