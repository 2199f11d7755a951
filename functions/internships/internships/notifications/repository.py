"""Read marks of feed entries: ``pk="NOTIFREAD#<user_id>"``, ``sk="<notification id>"`` (TTL 1 year),
and their count ``sk="#COUNT"`` (``n``), bumped with each new mark on condition ``n < cap``."""
from __future__ import annotations

from lambdakit import clock
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, Conflict

from ..settings import settings


def table() -> Table:
    return Table(settings().table_name)


def read_ids(user_id: str, ids: list[str]) -> set[str]:
    if not ids:
        return set()
    return {i["sk"] for i in table().batch_get([(f"NOTIFREAD#{user_id}", n) for n in ids])}


def mark_read(user_id: str, notification_id: str, cap: int) -> None:
    """Idempotent: an existing mark is left as it is; a new one counts against ``cap``."""
    pk, ttl = f"NOTIFREAD#{user_id}", int(clock.now_ts()) + 365 * 86400
    if table().get(pk, notification_id, consistent=True):
        return
    try:
        table().transact([
            {"put": {"pk": pk, "sk": notification_id, "read_at": clock.now_iso(), "ttl": ttl},
             "condition": "attribute_not_exists(pk)"},
            {"update": (pk, "#COUNT"), "add": {"n": 1}, "set": {"ttl": ttl},
             "condition": "attribute_not_exists(n) OR n < :cap", "values": {":cap": cap}},
        ])
    except ConditionFailed as exc:
        if exc.failed_ops == [0]:
            return  # marked meanwhile by a concurrent request
        raise Conflict("Too many notifications marked read") from None
