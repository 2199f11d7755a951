"""Certificate ids and views. Id: ``CERT-<YY>-<6 chars>`` from a cryptographically random upper-case
alphanumeric alphabet (secrets.choice); uniqueness is enforced by the conditional put that issues it."""
from __future__ import annotations

from lambdakit import clock
from lambdakit.ids import random_code

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: readable on paper


def new_id() -> str:
    return f"CERT-{clock.now().strftime('%y')}-{random_code(6, ALPHABET)}"


def verify_url(cert_id: str) -> str:
    from ..credentials.links import verify_page  # one rule: the PDF's QR, the e-mail and the credential

    return verify_page(cert_id)


def api_verify_url(cert_id: str) -> str:
    from ..settings import settings

    return settings().public_base_url.rstrip("/") + f"/api/certificates/verify/{cert_id}"


def public_view(c: dict) -> dict:
    return {"certificateId": c["certificate_id"], "studentName": c["student_name"], "domainName": c["domain_name"],
            "duration": c["duration"], "issueDate": c["issue_date"], "expiryAt": c.get("expiry_at")}


def owner_view(c: dict) -> dict:
    """The owner's view: the PDF, the Open Badges credential (JSON + VC-JWT) and badge PNG, and
    LinkedIn's add-to-profile link with the certification's name, issuer, dates, URL and id."""
    from ..credentials.links import linkedin_url

    cid = c["certificate_id"]
    return {**public_view(c), "enrollmentId": c["enrollment_id"], "revoked": bool(c.get("revoked")),
            "verifyUrl": verify_url(cid), "downloadUrl": f"/api/certificates/{cid}/download",
            "credentialUrl": f"/api/certificates/{cid}/credential", "badgeUrl": f"/api/certificates/{cid}/badge.png",
            "linkedInUrl": linkedin_url(c)}


def is_expired(c: dict) -> bool:
    exp = c.get("expiry_at")
    if not exp:
        return False
    return clock.parse_iso(exp) <= clock.now()
