"""Enrollment approval: active enrollment with every milestone reviewed → completed + certificate.
``force`` skips the milestone check and also allows pending or cancelled enrollments."""
from __future__ import annotations

from lambdakit.errors import Conflict, NotFound

from ..documents import certificates
from ..documents import repository as documents_repo
from ..documents import service as documents
from ..enrollments import repository as enrollments
from ..learning import repository as milestones


def approve(p, eid: str, force: bool) -> tuple[dict, bool]:
    e = enrollments.get(eid, consistent=True)
    if not e:
        raise NotFound("Enrollment not found")
    if e["status"] == "completed":
        c = documents_repo.certificate(e.get("certificate_id", "")) if e.get("certificate_id") else None
        if c:
            return certificates.owner_view(c), False
        raise Conflict("Enrollment is completed without a certificate")
    if not force:
        if e["status"] != "active":
            raise Conflict(f"Only an active enrollment can be approved (it is {e['status']}); pass force: true")
        pending = [m for m in milestones.list_for_enrollment(eid, consistent=True) if m["status"] != "reviewed"]
        if pending:
            raise Conflict(f"{len(pending)} milestone(s) not reviewed yet; pass force: true to approve anyway")
    cert = documents.issue_for(e)
    return certificates.owner_view(cert), True
