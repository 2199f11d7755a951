"""Tenancy and ownership checks (domain layer). A super admin passes every check."""
from __future__ import annotations

from lambdakit.errors import ApiError

from .principal import Principal


def forbidden(message: str = "You do not have permission to perform this action",
              code: str = "FORBIDDEN") -> ApiError:
    return ApiError(message, code=code, status=403)


def ensure_same_tenant(p: Principal, client_id: str | None) -> None:
    """A ``client_id`` parameter must name the caller's own tenant (TENANT_MISMATCH)."""
    if p.is_super_admin or client_id is None:
        return
    if client_id != p.client_id:
        raise forbidden("client_id does not match your organisation", "TENANT_MISMATCH")


def ensure_object_tenant(p: Principal, obj_client_id: str | None) -> None:
    """An object must belong to the caller's tenant (BOLA_VIOLATION)."""
    if p.is_super_admin:
        return
    if obj_client_id is None or obj_client_id != p.client_id:
        raise forbidden("This resource belongs to another organisation", "BOLA_VIOLATION")


def ensure_owner(p: Principal, owner_id: str | None) -> None:
    """An object must be owned by the caller (IDOR_VIOLATION)."""
    if p.is_super_admin:
        return
    if owner_id is None or owner_id != p.user_id:
        raise forbidden("You do not own this resource", "IDOR_VIOLATION")


def tenant_scope(p: Principal, client_id: str | None) -> str | None:
    """The tenant a list request is restricted to: a CA/student always gets their own
    (after TENANT_MISMATCH for another one); a super admin gets what was asked (``None`` = all)."""
    if p.is_super_admin:
        return client_id
    ensure_same_tenant(p, client_id)
    return p.client_id
