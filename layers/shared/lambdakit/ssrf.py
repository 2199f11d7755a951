"""Outbound URL checks against SSRF: only http(s), and every resolved address must be public."""
from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

METADATA_HOSTS = {"metadata.google.internal", "metadata", "instance-data"}


class UnsafeUrl(ValueError):
    pass


def _is_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return not (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_reserved
                or ip.is_unspecified or (isinstance(ip, ipaddress.IPv4Address) and ip in ipaddress.ip_network("100.64.0.0/10"))
                or (isinstance(ip, ipaddress.IPv6Address) and ip in ipaddress.ip_network("fd00:ec2::/32")))


def check_url(url: str, *, allow_private: bool = False, require_https: bool = True,
              resolve: bool = True) -> list[str]:
    """Validate ``url``; return its resolved addresses. Raises ``UnsafeUrl``.

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
    if host.lower() in METADATA_HOSTS:
        raise UnsafeUrl("URL points at a metadata service")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise UnsafeUrl("invalid port") from exc
    try:
        literal = ipaddress.ip_address(host)
        addrs = [str(literal)]
    except ValueError:
        if not resolve:
            return []
        try:
            infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
        except (socket.gaierror, UnicodeError) as exc:
            raise UnsafeUrl("host does not resolve") from exc
        addrs = sorted({str(i[4][0]) for i in infos})
    if not allow_private:
        for a in addrs:
            if not _is_public(ipaddress.ip_address(a.split("%")[0])):
                raise UnsafeUrl("URL resolves to a private, loopback, link-local or metadata address")
    return addrs
