"""Session cookies: ``auth-token`` (access JWT), ``refresh-token`` (Path=/api/auth), ``csrf-token``.

HttpOnly (except the double-submit CSRF cookie, which scripts must read), SameSite=Lax,
Secure except when the service itself runs on local http.
"""
from __future__ import annotations

from aws_lambda_powertools.shared.cookies import Cookie, SameSite

from ..settings import settings
from . import ACCESS_COOKIE, REFRESH_COOKIE
from .csrf import CSRF_COOKIE

REFRESH_PATH = "/api/auth"


def _secure() -> bool:
    s = settings()
    return not (s.is_local and s.public_base_url.startswith("http://"))


def session_cookies(access: str, access_max_age: int, refresh: str, refresh_max_age: int, csrf: str) -> list[Cookie]:
    sec = _secure()
    return [
        Cookie(ACCESS_COOKIE, access, path="/", secure=sec, http_only=True, max_age=access_max_age,
               same_site=SameSite.LAX_MODE),
        Cookie(REFRESH_COOKIE, refresh, path=REFRESH_PATH, secure=sec, http_only=True, max_age=refresh_max_age,
               same_site=SameSite.LAX_MODE),
        Cookie(CSRF_COOKIE, csrf, path="/", secure=sec, http_only=False, max_age=refresh_max_age,
               same_site=SameSite.LAX_MODE),
    ]


def clear_cookies() -> list[Cookie]:
    sec = _secure()
    return [
        Cookie(ACCESS_COOKIE, "", path="/", secure=sec, http_only=True, max_age=0, same_site=SameSite.LAX_MODE),
        Cookie(REFRESH_COOKIE, "", path=REFRESH_PATH, secure=sec, http_only=True, max_age=0,
               same_site=SameSite.LAX_MODE),
        Cookie(CSRF_COOKIE, "", path="/", secure=sec, http_only=False, max_age=0, same_site=SameSite.LAX_MODE),
    ]


def short_cookie(name: str, value: str, path: str, max_age: int) -> Cookie:
    """A short-lived HttpOnly cookie (OAuth state)."""
    return Cookie(name, value, path=path, secure=_secure(), http_only=True, max_age=max_age,
                  same_site=SameSite.LAX_MODE)


def long_cookie(name: str, value: str, path: str, max_age: int) -> Cookie:
    """A long-lived HttpOnly cookie (the analytics visitor id), same flags as the others."""
    return Cookie(name, value, path=path, secure=_secure(), http_only=True, max_age=max_age,
                  same_site=SameSite.LAX_MODE)
