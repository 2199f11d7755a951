"""Links of a certificate that need no key: its public verify page and LinkedIn's "Add to profile"
link. Apart from ``service`` so that the certificate list (``documents.views``, DocumentsFunction's
sample route) builds them without loading the credential rules (cold start, issue #21)."""
from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from lambdakit import clock

from ..settings import settings


def verify_page(cert_id: str) -> str:
    s = settings()
    return (s.frontend_url or s.public_base_url).rstrip("/") + f"/verify/{cert_id}"


def linkedin_url(c: dict) -> str:
    """LinkedIn's "Add to profile" link for a certification, every field filled in."""
    issued = clock.parse_iso(c.get("issued_at") or c["issue_date"] + "T00:00:00Z")
    q: dict[str, Any] = {"startTask": "CERTIFICATION_NAME", "name": f"{c['domain_name']} internship",
                         "organizationName": settings().issuer, "issueYear": issued.year,
                         "issueMonth": issued.month}
    if c.get("expiry_at"):
        exp = clock.parse_iso(c["expiry_at"])
        q.update(expirationYear=exp.year, expirationMonth=exp.month)
    q.update(certUrl=verify_page(c["certificate_id"]), certId=c["certificate_id"])
    return "https://www.linkedin.com/profile/add?" + urlencode(q)
