"""Scopes and the dashboard role → scope mapping (pure rules, no I/O).

Scopes are ``<resource>:<read|write>`` plus ``email:send``. The role table of the spec
has C/R/U/D columns; scopes only know read and write, so *delete* is checked as
``<resource>:delete``: a key holds it when it holds ``<resource>:write`` and, for a
role-based key, the role's column has D (Admin only). Keys with explicit scopes get
delete with write (as SendGrid's "full access" per resource).
"""
from __future__ import annotations

RESOURCES = ("campaigns", "contacts", "lists", "templates", "analytics", "webhooks", "settings")
SEND_SCOPE = "email:send"
ALL_SCOPES = frozenset({f"{r}:{a}" for r in RESOURCES for a in ("read", "write")} | {SEND_SCOPE})

# The spec's dashboard table. Columns: campaigns, contacts (lists share it), templates,
# analytics, settings (webhooks and API keys share it).
_TABLE: dict[str, dict[str, str]] = {
    "admin": {"campaigns": "CRUD", "contacts": "CRUD", "templates": "CRUD", "analytics": "R", "settings": "CRUD"},
    "manager": {"campaigns": "CRU", "contacts": "CRU", "templates": "CRU", "analytics": "R", "settings": "R"},
    "marketer": {"campaigns": "CRU", "contacts": "CRU", "templates": "CRU", "analytics": "R", "settings": ""},
    "analyst": {"campaigns": "R", "contacts": "R", "templates": "", "analytics": "R", "settings": ""},
    # "API access only": a developer works through keys an Admin issues with explicit scopes;
    # the role itself may only *read* the API/integration settings (webhooks, settings), never
    # manage keys (key management needs settings:write, i.e. Admin).
    "developer": {"campaigns": "", "contacts": "", "templates": "", "analytics": "", "settings": "R"},
}
ROLES = tuple(_TABLE)
# Which column governs each scope resource.
COLUMN = {"campaigns": "campaigns", "contacts": "contacts", "lists": "contacts", "templates": "templates",
          "analytics": "analytics", "webhooks": "settings", "settings": "settings"}


def role_rights(role: str, resource: str) -> str:
    """The C/R/U/D letters of ``role`` on a scope resource."""
    return _TABLE[role][COLUMN[resource]]


def role_scopes(role: str) -> frozenset[str]:
    """Scopes a role grants: R → read; C or U → write; email:send with campaign create."""
    out: set[str] = set()
    for res in RESOURCES:
        rights = role_rights(role, res)
        if "R" in rights:
            out.add(f"{res}:read")
        if "C" in rights or "U" in rights:
            out.add(f"{res}:write")
    if "C" in _TABLE[role]["campaigns"]:
        out.add(SEND_SCOPE)
    return frozenset(out)


def normalise_role(role: str | None) -> str | None:
    if role is None:
        return None
    r = str(role).strip().lower()
    if r not in _TABLE:
        raise ValueError(f"role must be one of: {', '.join(ROLES)}")
    return r


def allows(scopes: frozenset[str], role: str | None, required: str) -> bool:
    """Whether a key with ``scopes`` (and ``role``) may perform ``required``.

    ``required`` is a scope, or ``<resource>:delete``.
    """
    resource, _, action = required.partition(":")
    if action == "delete":
        if f"{resource}:write" not in scopes:
            return False
        return role is None or "D" in role_rights(role, resource)
    return required in scopes
