"""Read marks of feed entries: ``pk="NOTIFREAD#<user_id>"``, ``sk="<notification id>"`` (TTL 1 year)."""
from __future__ import annotations

from lambdakit import clock
from lambdakit.ddb import Table

from ..settings import settings


def table() -> Table:
    return Table(settings().table_name)


def read_ids(user_id: str, ids: list[str]) -> set[str]:
    if not ids:
        return set()
    return {i["sk"] for i in table().batch_get([(f"NOTIFREAD#{user_id}", n) for n in ids])}


def mark_read(user_id: str, notification_id: str) -> None:
    table().update(f"NOTIFREAD#{user_id}", notification_id, set_if_absent={"read_at": clock.now_iso()},
                   set={"ttl": int(clock.now_ts()) + 365 * 86400})
