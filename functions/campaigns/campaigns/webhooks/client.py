"""Outbound HTTP POST for webhook deliveries, pinned to the address the SSRF check approved
(no DNS rebinding between check and connect), without following redirects."""
from __future__ import annotations

import http.client
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from lambdakit.ssrf import UnsafeUrl, check_url

USER_AGENT = "EmailCampaigns-Webhooks/1.0"


@dataclass
class PostResult:
    status: int | None
    latency_ms: int
    error: str | None = None
    body_excerpt: str = ""


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, ip: str, timeout: float) -> None:
        self._tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self._tls)
        self._ip = ip

    def connect(self) -> None:
        sock = socket.create_connection((self._ip, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(sock, server_hostname=self.host)


class _PinnedHTTP(http.client.HTTPConnection):
    def __init__(self, host: str, port: int, ip: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._ip = ip

    def connect(self) -> None:
        self.sock = socket.create_connection((self._ip, self.port), self.timeout)


def post(url: str, body: bytes, headers: dict[str, str], *, timeout: float, allow_private: bool) -> PostResult:
    start = time.monotonic()
    try:
        addrs = check_url(url, allow_private=allow_private, require_https=not allow_private)
    except UnsafeUrl as exc:
        return PostResult(None, 0, f"refused: {exc}")
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    ip = addrs[0] if addrs else host
    cls = _PinnedHTTPS if parts.scheme == "https" else _PinnedHTTP
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    conn = cls(host, port, ip, timeout)
    try:
        conn.request("POST", path, body=body, headers={"Content-Type": "application/json", "User-Agent": USER_AGENT,
                                                       "Host": parts.netloc.rpartition("@")[2], **headers})
        resp = conn.getresponse()
        excerpt = resp.read(512).decode("utf-8", "replace")
        return PostResult(resp.status, int((time.monotonic() - start) * 1000), None, excerpt)
    except (OSError, http.client.HTTPException) as exc:
        return PostResult(None, int((time.monotonic() - start) * 1000), type(exc).__name__)
    finally:
        conn.close()
