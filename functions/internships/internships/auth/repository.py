"""Reads the auth layer needs on every authenticated request: the user and the role override."""
from __future__ import annotations

from collections.abc import Iterable

from ..store import clean
from ..store import table as _table
from .permissions import role_key

__all__ = ["clean", "role_override", "user_and_override"]

Key = tuple[str, str]


def user_and_override(user_id: str, role_hint: str, also: Iterable[Key] = (), *, consistent: bool = False
                      ) -> tuple[dict | None, dict | None, dict[Key, dict | None]]:
    """One BatchGetItem: the user item, the override item of ``role_hint`` and the items ``also``
    (returned as ``{key: item or None when absent}``; raw, with their key attributes).
    ``consistent``: the whole batch strongly consistent (a route whose first read is)."""
    ukey, okey = (f"USER#{user_id}", "PROFILE"), role_key(role_hint)
    extra = list(also)
    found = _table().get_many([ukey, okey, *extra], consistent=consistent)  # duplicates are read once
    return found.get(ukey), found.get(okey), {k: found.get(k) for k in extra}


def warm() -> None:
    """Create the DynamoDB client now (while another thread waits on the network)."""
    _table().client  # noqa: B018 - the property creates and caches it


def role_override(role: str) -> dict | None:
    pk, sk = role_key(role)
    return _table().get(pk, sk)
