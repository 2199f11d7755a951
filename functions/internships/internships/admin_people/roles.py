"""The role → permission table: defaults in code, overrides in DynamoDB.

Rules: only the four staff roles have permissions (student has none, and cannot be
edited); every permission must be in the catalogue; ``manage_users`` and
``manage_roles`` stay super_admin only, and super_admin always keeps them.
"""
from __future__ import annotations

from lambdakit.errors import NotFound, ValidationFailed

from .. import activity
from ..auth import permissions as perms
from ..auth import repository as auth_repo
from . import repository as repo

STAFF_ROLES = ("super_admin", "admin", "project_admin", "reviewer")
ALL_ROLES = STAFF_ROLES + ("student",)
SUPER_ONLY = frozenset({"manage_users", "manage_roles"})


def _check_role(role: str) -> None:
    if role not in ALL_ROLES:
        raise NotFound(f"Unknown role: {role}")


def describe(role: str) -> dict:
    _check_role(role)
    override = repo.get_role_override(role) if role in STAFF_ROLES else None
    defaults = sorted(perms.DEFAULT_ROLE_PERMISSIONS.get(role, frozenset()))
    effective = sorted(perms.resolve(role, auth_repo.role_override(role)))
    return {"role": role, "permissions": effective, "defaults": defaults, "customised": override is not None,
            "editable": role in STAFF_ROLES, "version": int((override or {}).get("version", 0)),
            "updatedAt": (override or {}).get("updated_at"), "updatedBy": (override or {}).get("updated_by")}


def list_roles() -> dict:
    return {"roles": [describe(r) for r in ALL_ROLES], "permissions": sorted(perms.PERMISSIONS)}


def update(admin_id: str, role: str, permissions: list[str] | None, *, reset: bool = False,
           version: int | None = None) -> dict:
    _check_role(role)
    if role not in STAFF_ROLES:
        raise ValidationFailed("Students cannot hold admin permissions", fields={"role": "Not editable"})
    before = describe(role)
    if reset:
        wanted: set[str] | None = None
    else:
        if permissions is None:
            raise ValidationFailed("permissions is required", fields={"permissions": "Field required"})
        unknown = sorted(set(permissions) - set(perms.PERMISSIONS))
        if unknown:
            raise ValidationFailed(f"Unknown permission: {unknown[0]}", fields={"permissions": "Unknown permission"})
        wanted = set(permissions)
        if role == "super_admin":
            wanted |= SUPER_ONLY
        elif wanted & SUPER_ONLY:
            bad = sorted(wanted & SUPER_ONLY)[0]
            raise ValidationFailed(f"{bad} stays super_admin only", fields={"permissions": f"{bad} is super_admin only"})
    after_perms = sorted(perms.resolve(role, None if wanted is None else {"permissions": sorted(wanted)}))
    # the override and its activity entry in one transaction: never changed without a log line
    repo.write_role_change([
        repo.role_override_op(role, None if wanted is None else sorted(wanted), admin_id, None if reset else version),
        *activity.entry_ops(admin_id, "role.reset" if reset else "role.update", "role", role,
                            before={"permissions": before["permissions"]}, after={"permissions": after_perms})])
    return describe(role)
