"""Principals named in a request (``student_id`` in a path, body or query): they must exist and
belong to the tenant the caller acts in.

An id that exists nowhere, or a member of the tenant who is not a student, is 404
``STUDENT_NOT_FOUND``. Another tenant's principal is 403 (the spec's cross-tenant rule 6, issue 32
item 6, which overrides issue 17's "404 for a foreign student_id"): ``BOLA_VIOLATION`` when the
caller reaches into another tenant, ``TENANT_MISMATCH`` when a super admin pairs objects of two
tenants (a student of one with a test of another)."""
from __future__ import annotations

from lambdakit.errors import ApiError, NotFound

from .principal import STUDENT
from .repository import get_profile


def student_not_found(student_id: str) -> ApiError:
    return NotFound("Student not found", code="STUDENT_NOT_FOUND",
                    details={"resource_type": "student", "resource_id": student_id})


def tenant_student(student_id: str, client_id: str | None, *, mismatch: str = "BOLA_VIOLATION") -> dict:
    """The student profile ``student_id`` of tenant ``client_id`` (``None``: any tenant): 404 when
    it exists nowhere or is not a student, 403 ``mismatch`` when it is another tenant's."""
    from .tenancy import forbidden

    prof = get_profile(student_id)
    if not prof:
        raise student_not_found(student_id)
    if client_id is not None and prof.get("client_id") != client_id:
        raise forbidden("This student belongs to another organisation", mismatch)
    if prof.get("role") != STUDENT:
        raise student_not_found(student_id)
    return prof


def ensure_self(p, user_id: str | None) -> None:
    """A student names only themself: another tenant's principal is 403 ``BOLA_VIOLATION`` (the
    spec's cross-tenant rule comes first), anyone else 403 ``IDOR_VIOLATION``."""
    from .tenancy import ensure_owner, forbidden

    if p.is_super_admin or (user_id is not None and user_id == p.user_id):
        return
    prof = get_profile(user_id) if user_id else None
    if prof and prof.get("client_id") != p.client_id:
        raise forbidden("This resource belongs to another organisation", "BOLA_VIOLATION")
    ensure_owner(p, user_id)
