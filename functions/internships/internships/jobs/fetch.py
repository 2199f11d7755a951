"""Outbound fetches of configured job sources: SSRF-checked, time-limited, size-capped.

Only URLs from configuration are fetched (``INTERNSHIPS_JOBS_SEARCH_URL``,
``INTERNSHIPS_JOBS_RSS_FEEDS``). Each URL (and each redirect target, at most 3)
passes ``lambdakit.ssrf.check_url``; private and loopback addresses, and plain
http, are allowed only when Stage is ``local`` (fixture feeds on 127.0.0.1).
"""
from __future__ import annotations

import urllib.error
import urllib.request
from urllib.parse import urljoin

from lambdakit.ssrf import UnsafeUrl, check_url

from ..settings import settings

MAX_REDIRECTS = 3
USER_AGENT = "internships-jobs-fetcher/1.0"


class FetchError(Exception):
    pass


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D401
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def fetch(url: str, *, accept: str = "*/*") -> bytes:
    s = settings()
    local = s.is_local
    for _ in range(MAX_REDIRECTS + 1):
        try:
            check_url(url, allow_private=local, require_https=not local)
        except UnsafeUrl as exc:
            raise FetchError(f"refused URL: {exc}") from None
        req = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": accept})
        try:
            with _opener.open(req, timeout=s.jobs_fetch_timeout_seconds) as resp:
                declared = resp.headers.get("Content-Length")
                if declared and declared.isdigit() and int(declared) > s.jobs_max_response_bytes:
                    raise FetchError("response too large")
                data = resp.read(s.jobs_max_response_bytes + 1)
                if len(data) > s.jobs_max_response_bytes:
                    raise FetchError("response too large")
                return data
        except urllib.error.HTTPError as exc:
            if exc.code in (301, 302, 303, 307, 308) and exc.headers.get("Location"):
                url = urljoin(url, exc.headers["Location"])
                continue
            raise FetchError(f"HTTP {exc.code}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise FetchError(f"unreachable: {type(exc).__name__}") from None
    raise FetchError("too many redirects")
