"""The access-control matrix: every role x every resource x read/write/delete equals the spec's table."""
from __future__ import annotations

import pytest

from campaigns.apikeys.scopes import RESOURCES, ROLES, allows, role_scopes

# The spec's dashboard table (lists share contacts; webhooks and API keys share settings).
TABLE = {
    "admin": {"campaigns": "CRUD", "contacts": "CRUD", "templates": "CRUD", "analytics": "R", "settings": "CRUD"},
    "manager": {"campaigns": "CRU", "contacts": "CRU", "templates": "CRU", "analytics": "R", "settings": "R"},
    "marketer": {"campaigns": "CRU", "contacts": "CRU", "templates": "CRU", "analytics": "R", "settings": ""},
    "analyst": {"campaigns": "R", "contacts": "R", "templates": "", "analytics": "R", "settings": ""},
    "developer": {"campaigns": "", "contacts": "", "templates": "", "analytics": "", "settings": "R"},
}
COLUMN = {"campaigns": "campaigns", "contacts": "contacts", "lists": "contacts", "templates": "templates",
          "analytics": "analytics", "webhooks": "settings", "settings": "settings"}


@pytest.mark.parametrize("role", ROLES)
def test_matrix(role):
    assert set(ROLES) == set(TABLE)
    scopes = role_scopes(role)
    for res in RESOURCES:
        rights = TABLE[role][COLUMN[res]]
        assert allows(scopes, role, f"{res}:read") == ("R" in rights), (role, res)
        assert allows(scopes, role, f"{res}:write") == ("C" in rights and "U" in rights), (role, res)
        assert allows(scopes, role, f"{res}:delete") == ("D" in rights), (role, res)
    assert allows(scopes, role, "email:send") == ("C" in TABLE[role]["campaigns"])


def test_explicit_scopes_write_implies_delete():
    assert allows(frozenset({"contacts:write"}), None, "contacts:delete")
    assert not allows(frozenset({"contacts:read"}), None, "contacts:delete")


@pytest.mark.parametrize("role", ROLES)
def test_matrix_through_handlers(campaigns_app, make_key, role):
    """Each role against one real read and one real write route per resource of this slice."""
    c = campaigns_app.campaigns
    h = {"Authorization": f"Bearer {make_key(role=role)}"}
    probes = {
        ("contacts", "read"): ("GET", "/contacts", None),
        ("contacts", "write"): ("POST", "/contacts", {"email": f"{role}@example.com"}),
        ("lists", "read"): ("GET", "/lists", None),
        ("lists", "write"): ("POST", "/lists", {"name": f"{role} list"}),
        ("templates", "read"): ("GET", "/templates", None),
        ("templates", "write"): ("POST", "/templates", {"name": "t", "subject": "s", "content": "c"}),
        ("settings", "write"): ("GET", "/api-keys", None),
    }
    for (res, action), (method, path, body) in probes.items():
        rights = TABLE[role][COLUMN[res]]
        allowed = ("R" in rights) if action == "read" else ("C" in rights and "U" in rights)
        r = c.request(method, path, json=body, headers=h)
        if allowed:
            assert r.status in (200, 201), (role, res, action, r.status, r.text)
        else:
            assert r.status == 403 and r.json()["error"]["code"] == "PERMISSION_DENIED", (role, res, action)
