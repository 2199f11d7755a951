"""Dependency checks for GET /health and the banner for GET / (domain)."""
from __future__ import annotations

from lambdakit.observability import get_logger

logger = get_logger("exams")


def run() -> dict[str, str]:
    from ..controls import repository as controls
    from ..identity import jwks
    from ..settings import settings

    out: dict[str, str] = {}
    try:
        controls.get_settings()
        out["database"] = "ok"
    except Exception:  # noqa: BLE001
        logger.warning("health: database check failed")
        out["database"] = "error"
    # No outbound call on a health probe: identity is "ok" when issuer, audience and JWKS are configured.
    s = settings()
    out["identity"] = "ok" if (s.jwt_issuer and s.jwt_audience and jwks.effective_url()) else "not_configured"
    out["cache"] = "ok"  # in-process JWKS cache; nothing external to probe
    return out


def announcement_banner() -> str | None:
    from ..controls import platform

    try:
        return platform.current().get("announcement_banner") or None
    except Exception:  # noqa: BLE001 - the info route must answer even when the table is unreachable
        logger.warning("banner lookup failed")
        return None
