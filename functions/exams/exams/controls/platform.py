"""Platform settings (domain): defaults, the per-request read (maintenance mode, banner) and the
super admin's partial update (optimistic, audited with before/after)."""
from __future__ import annotations

from collections.abc import Mapping

from lambdakit import clock
from lambdakit.errors import ApiError, ConditionFailed

from ..audit import writer as audit
from . import repository as repo

DEFAULTS = {"maintenance_mode": False, "announcement_banner": None, "registration_enabled": True}
FIELDS = tuple(DEFAULTS)


def current(have: Mapping[tuple[str, str], dict | None] | None = None) -> dict:
    """The platform settings (``have``: items read with authentication, which may hold the item)."""
    return from_item(repo.get_settings(have))


def from_item(item: dict | None) -> dict:
    """The settings of the stored item (``None``: not stored yet, the defaults)."""
    item = item or {}
    out = {k: item.get(k, v) for k, v in DEFAULTS.items()}
    out["updated_at"] = item.get("updated_at")
    out["updated_by"] = item.get("updated_by")
    return out


def update(changes: dict, *, actor_id: str) -> dict:
    """Apply a partial update; writes an audit row with before/after."""
    for _ in range(3):
        before_item = repo.get_settings()
        before = {k: (before_item or {}).get(k, v) for k, v in DEFAULTS.items()}
        try:
            repo.update_settings({**changes, "updated_at": clock.now_iso(), "updated_by": actor_id},
                                 before=before_item)
            break
        except ConditionFailed:
            continue  # a concurrent writer won; re-read and re-apply
    else:
        raise ApiError("Settings were changed concurrently; retry", code="CONFLICT", status=409)
    after = current()
    audit.record("settings.update", "settings", "platform", user_id=actor_id,
                 metadata={"before": before, "after": {k: after[k] for k in FIELDS}})
    return after
