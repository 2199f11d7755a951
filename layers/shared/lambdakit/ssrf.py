"""Outbound URL checks against SSRF, and the one pinned HTTP client every outbound fetcher uses.

``check_url``: only http(s) (https unless told otherwise), no credentials, no metadata host
names, and every address the host resolves to must be public. Refused besides the private,
loopback, link-local, multicast, reserved, unspecified and CGNAT ranges: every IPv6 form that
embeds an IPv4 address - 6to4 ``2002::/16``, Teredo ``2001::/32``, NAT64 ``64:ff9b::/96`` and
``64:ff9b:1::/48``, IPv4-mapped ``::ffff:0:0/96``, IPv4-translated ``::ffff:0:0:0/96``,
IPv4-compatible ``::/96`` and ISATAP interface identifiers - whatever the embedded IPv4 is
(the refusal names the embedded address).

``fetch``: checks the URL, then connects to exactly the address the check approved (no second
DNS resolution, so no rebinding between check and connect), keeping the ``Host`` header and,
for https, the SNI name and certificate check on the URL's host name. Redirects are never
followed: a 3xx comes back to the caller, which checks the ``Location`` as a new URL.
``allow_private`` is for the local stage only (fixture receivers on 127.0.0.1).
"""
from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass, field
from urllib.parse import urlsplit

METADATA_HOSTS = {"metadata.google.internal", "metadata", "instance-data"}

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_V4_NON_PUBLIC = [ipaddress.ip_network(n) for n in (
    "0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.88.99.0/24", "198.18.0.0/15", "255.255.255.255/32")]
_V6_NON_PUBLIC = [ipaddress.ip_network(n) for n in ("fd00:ec2::/32", "fc00::/7", "fe80::/10", "100::/64")]
#: IPv6 ranges that embed an IPv4 address: (network, name, how to extract the IPv4 address)
_V6_EMBEDDING: list[tuple[ipaddress.IPv6Network, str, str]] = [
    (ipaddress.IPv6Network("::ffff:0:0/96"), "IPv4-mapped", "low32"),
    (ipaddress.IPv6Network("::ffff:0:0:0/96"), "IPv4-translated", "low32"),
    (ipaddress.IPv6Network("64:ff9b::/96"), "NAT64", "low32"),
    (ipaddress.IPv6Network("64:ff9b:1::/48"), "NAT64 (local use)", "low32"),
    (ipaddress.IPv6Network("2002::/16"), "6to4", "6to4"),
    (ipaddress.IPv6Network("2001::/32"), "Teredo", "teredo"),
    (ipaddress.IPv6Network("::/96"), "IPv4-compatible", "low32"),
]


class UnsafeUrl(ValueError):
    pass


def _embedded_v4(ip: ipaddress.IPv6Address, how: str) -> ipaddress.IPv4Address:
    n = int(ip)
    if how == "6to4":
        return ipaddress.IPv4Address((n >> 80) & 0xFFFFFFFF)
    if how == "teredo":
        return ipaddress.IPv4Address(~n & 0xFFFFFFFF)  # the client address, obfuscated
    return ipaddress.IPv4Address(n & 0xFFFFFFFF)


def address_problem(ip: IPAddress) -> str | None:
    """Why ``ip`` must not be contacted, or ``None`` for a public address."""
    if ip.is_loopback or ip.is_unspecified:
        return "URL resolves to a private, loopback, link-local or metadata address"
    if isinstance(ip, ipaddress.IPv6Address):
        for net, name, how in _V6_EMBEDDING:
            if ip in net:
                return f"{name} IPv6 address (embeds {_embedded_v4(ip, how)}) is refused"
        if (int(ip) >> 32) & 0xFDFFFFFF == 0x00005EFE:
            return f"ISATAP IPv6 address (embeds {ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)}) is refused"
        if ip.scope_id:
            return "scoped IPv6 address is refused"
        extra = any(ip in n for n in _V6_NON_PUBLIC)
    else:
        extra = any(ip in n for n in _V4_NON_PUBLIC)
    if extra or ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_reserved \
            or ip.is_unspecified or not ip.is_global:
        return "URL resolves to a private, loopback, link-local or metadata address"
    return None


def _is_public(ip: IPAddress) -> bool:
    return address_problem(ip) is None


def _is_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _resolve(host: str, port: int) -> list[str]:
    if _is_literal(host):
        return [str(ipaddress.ip_address(host))]
    try:
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise UnsafeUrl("host does not resolve") from exc
    return sorted({str(i[4][0]) for i in infos})


def check_url(url: str, *, allow_private: bool = False, require_https: bool = True,
              resolve: bool = True) -> list[str]:
    """Validate ``url``; return its resolved addresses (all checked). Raises ``UnsafeUrl``.

    ``allow_private`` is for local development only (receivers on 127.0.0.1).
    """
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise UnsafeUrl("invalid URL") from exc
    if parts.scheme not in ("https",) + (() if require_https else ("http",)):
        raise UnsafeUrl("URL must use https" if require_https else "URL must use http or https")
    host = parts.hostname
    if not host:
        raise UnsafeUrl("URL has no host")
    if parts.username or parts.password:
        raise UnsafeUrl("URL must not carry credentials")
    if host.lower().rstrip(".") in METADATA_HOSTS:
        raise UnsafeUrl("URL points at a metadata service")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise UnsafeUrl("invalid port") from exc
    addrs = _resolve(host, port) if resolve or _is_literal(host) else []
    if not addrs:
        if resolve:
            raise UnsafeUrl("host does not resolve")
        return []
    if not allow_private:
        for a in addrs:
            try:
                problem = address_problem(ipaddress.ip_address(a))
            except ValueError:
                problem = "URL resolves to an invalid address"
            if problem:
                raise UnsafeUrl(problem)
    return addrs


# ---------------------------------------------------------------- the pinned client
class _PinnedHTTPS(http.client.HTTPSConnection):
    """Connects to ``ip``; TLS SNI and certificate check use the URL's host name."""

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


class ResponseTooLarge(Exception):
    pass


@dataclass
class FetchResult:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    #: the address the request went to (the one the check approved)
    address: str = ""

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


def fetch(url: str, *, method: str = "GET", body: bytes | None = None, headers: dict[str, str] | None = None,
          timeout: float = 10, allow_private: bool = False, require_https: bool = True,
          max_bytes: int = 5 * 1024 * 1024, truncate: bool = False) -> FetchResult:
    """One request to ``url`` pinned to the checked address, redirects not followed.

    ``UnsafeUrl`` when the URL is refused; ``ResponseTooLarge`` when the body exceeds
    ``max_bytes`` (unless ``truncate``: then the first ``max_bytes`` come back);
    ``OSError``/``http.client.HTTPException`` on network failures."""
    addrs = check_url(url, allow_private=allow_private, require_https=require_https)
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    ip = addrs[0].split("%")[0]
    cls = _PinnedHTTPS if parts.scheme == "https" else _PinnedHTTP
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    conn = cls(host, port, ip, timeout)
    try:
        conn.request(method, path, body=body, headers={"Host": parts.netloc.rpartition("@")[2], **(headers or {})})
        resp = conn.getresponse()
        hdrs = {k.lower(): v for k, v in resp.getheaders()}
        declared = hdrs.get("content-length", "")
        if not truncate and declared.isdigit() and int(declared) > max_bytes:
            raise ResponseTooLarge(f"response declares {declared} bytes")
        data = resp.read(max_bytes + (0 if truncate else 1))
        if len(data) > max_bytes:
            raise ResponseTooLarge("response too large")
        return FetchResult(resp.status, hdrs, data, ip)
    finally:
        conn.close()
