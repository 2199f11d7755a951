"""Request-scoped facts the audit writer needs (set by the service middleware)."""
from __future__ import annotations

import contextvars

_ip: contextvars.ContextVar[str | None] = contextvars.ContextVar("exams_audit_ip", default=None)


def set_ip(ip: str | None) -> None:
    _ip.set(ip)


def current_ip() -> str | None:
    return _ip.get()
