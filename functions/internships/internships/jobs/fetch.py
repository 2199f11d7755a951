"""Outbound fetches of configured job sources: SSRF-checked, time-limited, size-capped.

Only URLs from configuration are fetched (``INTERNSHIPS_JOBS_SEARCH_URL``,
``INTERNSHIPS_JOBS_RSS_FEEDS``). Each URL (and each redirect target, at most 3)
passes ``lambdakit.ssrf.check_url`` and is fetched with ``lambdakit.ssrf.fetch``, pinned to the
address the check approved (no second DNS resolution); private and loopback addresses, and
plain http, are allowed only when Stage is ``local`` (fixture feeds on 127.0.0.1).
"""
from __future__ import annotations

import http.client
from time import monotonic
from urllib.parse import urljoin

from lambdakit import ssrf

from ..settings import settings

MAX_REDIRECTS = 3
USER_AGENT = "internships-jobs-fetcher/1.0"


class FetchError(Exception):
    pass


def fetch(url: str, *, accept: str = "*/*") -> bytes:
    """One source: ``jobs_fetch_timeout_seconds`` bounds all its hops together (redirects included),
    so a source fits the routes' time margin (``internships.tasks``, issue 33 item 6)."""
    s = settings()
    local = s.is_local
    deadline = monotonic() + s.jobs_fetch_timeout_seconds
    for _ in range(MAX_REDIRECTS + 1):
        left = deadline - monotonic()
        if left <= 0.05:
            raise FetchError("unreachable: timed out")
        try:
            resp = ssrf.fetch(url, headers={"User-Agent": USER_AGENT, "Accept": accept}, allow_private=local,
                              require_https=not local, timeout=left,
                              max_bytes=s.jobs_max_response_bytes)
        except ssrf.UnsafeUrl as exc:
            raise FetchError(f"refused URL: {exc}") from None
        except ssrf.ResponseTooLarge:
            raise FetchError("response too large") from None
        except (OSError, http.client.HTTPException) as exc:
            raise FetchError(f"unreachable: {type(exc).__name__}") from None
        if resp.status in (301, 302, 303, 307, 308) and resp.header("location"):
            url = urljoin(url, resp.header("location") or "")
            continue
        if resp.status >= 400:
            raise FetchError(f"HTTP {resp.status}")
        return resp.body
    raise FetchError("too many redirects")
