"""Permission catalogue and role defaults (contract shared by the three internship slices).

Pure rules, no I/O: ``resolve(role, override)`` turns a role's stored override item
``pk="ROLE#<role>", sk="PERMISSIONS"`` (attribute ``permissions``: list; read by
``auth.repository``) into its effective permissions, falling back to ``DEFAULT_ROLE_PERMISSIONS``.
super_admin always keeps ``manage_users`` and ``manage_roles`` so nobody can lock the
platform out of its own administration.
"""
from __future__ import annotations

PERMISSIONS: tuple[str, ...] = (
    "manage_users", "manage_roles", "manage_templates", "edit_template", "manage_certificates", "export_data",
    "review_milestones", "force_milestone_status", "manage_domains", "manage_coupons", "manage_enrollments",
    "manage_announcements", "manage_resources", "manage_jobs", "manage_emails", "manage_leads", "manage_settings",
    "manage_invoices", "view_analytics", "view_activity_logs", "view_students", "view_users",
)

ROLES: tuple[str, ...] = ("student", "admin", "super_admin", "project_admin", "reviewer")
STAFF_ROLES: tuple[str, ...] = ("admin", "super_admin", "project_admin", "reviewer")

DEFAULT_ROLE_PERMISSIONS: dict[str, frozenset[str]] = {
    "super_admin": frozenset(PERMISSIONS),
    "admin": frozenset(p for p in PERMISSIONS if p not in ("manage_users", "manage_roles")),
    "project_admin": frozenset({
        "manage_templates", "edit_template", "manage_certificates", "export_data", "review_milestones",
        "manage_domains", "manage_enrollments", "manage_announcements", "manage_resources", "manage_jobs",
        "view_analytics", "view_students", "view_users",
    }),
    "reviewer": frozenset({"review_milestones", "view_analytics", "view_students"}),
    "student": frozenset(),
}

ALWAYS: dict[str, frozenset[str]] = {"super_admin": frozenset({"manage_users", "manage_roles"})}


def role_key(role: str) -> tuple[str, str]:
    """DynamoDB key of a role's permission override item."""
    return f"ROLE#{role}", "PERMISSIONS"


def resolve(role: str, override: dict | None) -> frozenset[str]:
    """Effective permissions of ``role`` given its stored override item (or ``None``)."""
    if override is not None and isinstance(override.get("permissions"), list):
        perms = frozenset(p for p in override["permissions"] if p in PERMISSIONS)
    else:
        perms = DEFAULT_ROLE_PERMISSIONS.get(role, frozenset())
    return perms | ALWAYS.get(role, frozenset())
