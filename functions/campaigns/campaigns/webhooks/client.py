"""Outbound HTTP POST for webhook deliveries through ``lambdakit.ssrf.fetch``: pinned to the
address the SSRF check approved (no DNS rebinding between check and connect; SNI and the
certificate check stay on the URL's host name), without following redirects."""
from __future__ import annotations

import http.client
import time
from dataclasses import dataclass

from lambdakit import ssrf

USER_AGENT = "EmailCampaigns-Webhooks/1.0"


@dataclass
class PostResult:
    status: int | None
    latency_ms: int
    error: str | None = None
    body_excerpt: str = ""


def post(url: str, body: bytes, headers: dict[str, str], *, timeout: float, allow_private: bool) -> PostResult:
    start = time.monotonic()
    try:
        resp = ssrf.fetch(url, method="POST", body=body, timeout=timeout, allow_private=allow_private,
                          require_https=not allow_private, max_bytes=512, truncate=True,
                          headers={"Content-Type": "application/json", "User-Agent": USER_AGENT, **headers})
    except ssrf.UnsafeUrl as exc:
        return PostResult(None, 0, f"refused: {exc}")
    except (OSError, http.client.HTTPException) as exc:
        return PostResult(None, int((time.monotonic() - start) * 1000), type(exc).__name__)
    return PostResult(resp.status, int((time.monotonic() - start) * 1000), None,
                      resp.body.decode("utf-8", "replace"))
