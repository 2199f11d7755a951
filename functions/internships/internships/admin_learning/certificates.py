"""Admin certificates list, revoke and un-revoke (a revoked certificate verifies as 404)."""
from __future__ import annotations

from lambdakit import clock
from lambdakit.errors import ConditionFailed, Conflict, NotFound

from .. import activity
from . import repository as repo

SEARCH_ATTRS = ["certificate_id", "student_name", "student_email", "domain_name"]


def list_certificates(*, search, revoked, domain_id, offset, limit, cursor):
    eq = {}
    if revoked is not None:
        eq["revoked"] = revoked
    if domain_id:
        eq["domain_id"] = domain_id
    flt = repo.attr_filter(eq, (SEARCH_ATTRS, search) if search else None)
    items, nxt = repo.page("CERTS", "gsi2", flt=flt, offset=offset, limit=limit, cursor=cursor)
    if flt is None:
        total, exact = repo.count("certificates"), True
    else:
        total, exact = repo.count_query("CERTS", "gsi2", flt=flt)
    return items, total, exact, nxt


def set_revoked(admin_id: str, cid: str, revoked: bool, reason: str | None) -> dict:
    cert = repo.get_certificate(cid)
    if not cert:
        raise NotFound("Certificate not found")
    now = clock.now_iso()
    sets = {"revoked_at": now, "revoked_by": admin_id, "revoked_reason": reason or ""} if revoked else \
        {"unrevoked_at": now, "unrevoked_by": admin_id}
    remove = [] if revoked else ["revoked_at", "revoked_by", "revoked_reason"]
    for attempt in range(2):
        try:
            after = repo.set_revoked(cid, revoked, sets, remove, cert.get("status_index"))
            break
        except ConditionFailed:
            # read back (issue 23 rule 2): a credential status index given meanwhile is retried once
            now_cert = repo.get_certificate(cid) or {}
            if attempt or bool(now_cert.get("revoked")) == revoked or \
                    now_cert.get("status_index") == cert.get("status_index"):
                raise Conflict("Certificate already revoked" if revoked else "Certificate is not revoked") from None
            cert = now_cert
    activity.record(admin_id, "certificate.revoke" if revoked else "certificate.unrevoke", "certificate", cid,
                    before={"revoked": bool(cert.get("revoked"))},
                    after={"revoked": revoked, **({"reason": reason} if reason else {})})
    return after
