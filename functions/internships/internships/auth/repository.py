"""Reads the auth layer needs on every authenticated request: the user and the role override."""
from __future__ import annotations

from ..store import clean
from ..store import table as _table
from .permissions import role_key

__all__ = ["clean", "role_override", "user_and_override"]


def user_and_override(user_id: str, role_hint: str) -> tuple[dict | None, dict | None]:
    """One BatchGetItem: the user item and the override item of ``role_hint``."""
    rpk, rsk = role_key(role_hint)
    items = _table().batch_get([(f"USER#{user_id}", "PROFILE"), (rpk, rsk)])
    user = next((i for i in items if i["pk"] == f"USER#{user_id}"), None)
    override = next((i for i in items if i["pk"] == rpk), None)
    return user, override


def role_override(role: str) -> dict | None:
    pk, sk = role_key(role)
    return _table().get(pk, sk)
