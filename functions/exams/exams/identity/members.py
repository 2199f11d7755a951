"""Principals named in a request (``student_id`` in a body or query): they must exist and belong
to the tenant the caller acts in. Unknown, foreign and non-student ids get the same 404, so the
answer reveals nothing about other tenants."""
from __future__ import annotations

from lambdakit.errors import ApiError, NotFound

from .principal import STUDENT
from .repository import get_profile


def student_not_found(student_id: str) -> ApiError:
    return NotFound("Student not found", code="STUDENT_NOT_FOUND",
                    details={"resource_type": "student", "resource_id": student_id})


def tenant_student(student_id: str, client_id: str | None) -> dict:
    """The student profile ``student_id`` of tenant ``client_id`` (``None``: any tenant), else 404."""
    prof = get_profile(student_id)
    if not prof or prof.get("role") != STUDENT or (client_id is not None and prof.get("client_id") != client_id):
        raise student_not_found(student_id)
    return prof
