"""The public base URL that links in mail are built on (issue 33 item 1): a deployed stage never
sends a link it cannot resolve.

The URL is, in order: the service's setting (``<SERVICE>_PUBLIC_BASE_URL``: the template's
``PublicBaseUrl`` parameter or ``https://<CustomDomainName>``), else the SSM parameter the template
creates (``<SERVICE>_PUBLIC_BASE_URL_PARAMETER``; ``make base-url`` writes the stack's API URL into
it, read at run time so no second deploy is needed), else ``BaseUrlNotSet``: 503
``BASE_URL_NOT_SET`` in the service's error format, and the reason on its health route.
Only an absolute ``http(s)://host`` URL counts (the template's placeholder ``unset`` does not).
"""
from __future__ import annotations

from urllib.parse import urlsplit

from .errors import ServiceUnavailable

#: The SSM parameter's value until ``make base-url`` writes it (CloudFormation needs a value).
PLACEHOLDER = "unset"
#: Seconds a process keeps the parameter's value: a stage sends within a minute of ``make base-url``.
MAX_AGE = 60


class BaseUrlNotSet(ServiceUnavailable):
    status, code = 503, "BASE_URL_NOT_SET"


def usable(url: str) -> bool:
    """An absolute http(s) URL with a host and no query or fragment: links appended to it resolve."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and not parts.query and not parts.fragment


def _configured(configured: str, parameter: str) -> tuple[str | None, str]:
    """``(url, "")`` or ``(None, reason)``."""
    url = (configured or "").strip()
    if url:
        if usable(url):
            return url.rstrip("/"), ""
        return None, f"the configured public base URL {url[:100]!r} is not an absolute http(s) URL"
    if not parameter:
        return None, "no public base URL is configured (PublicBaseUrl or CustomDomainName) and no SSM parameter is named"
    from . import parameters

    value = (parameters.parameter_value(parameter, MAX_AGE) or "").strip()
    if usable(value):
        return value.rstrip("/"), ""
    return None, (f"the public base URL is not set: set the stack parameter CustomDomainName or PublicBaseUrl, "
                  f"or run `make base-url` to write the API URL into SSM parameter {parameter}")


def resolve(configured: str, parameter: str) -> str:
    """The base URL (no trailing slash), or ``BaseUrlNotSet``."""
    url, reason = _configured(configured, parameter)
    if url is None:
        raise BaseUrlNotSet(f"Sending is disabled until the public base URL is set: {reason}",
                            details={"reason": reason})
    return url


def problem(configured: str, parameter: str) -> str | None:
    """Why no link could be resolved now (the health routes), ``None`` when one can. A failed SSM read
    is a reason too, never an error of the health route."""
    try:
        url, reason = _configured(configured, parameter)
    except Exception as exc:  # noqa: BLE001 - health reports, it does not fail
        return f"the SSM parameter {parameter} could not be read ({type(exc).__name__})"
    return None if url else reason
