"""DynamoDB access for the ADMIN learning routes.

Certificate templates: ``pk="CERTTPL#<id>"``, ``sk="CERTTPL"``; ``gsi1pk="CERTTPLS"``,
``gsi1sk="<created_at>#<id>"``. The active one is named by ``pk="CERTTPL"``, ``sk="ACTIVE"``
(``template_id``), and carries ``is_active`` itself; activation flips both in one transaction.
"""
from __future__ import annotations

from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, Conflict

from ..settings import settings

INTERNAL = ("pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "gsi3pk", "gsi3sk")
ACTIVE_KEY = ("CERTTPL", "ACTIVE")


def table() -> Table:
    return Table(settings().table_name)


def clean(item: dict | None) -> dict | None:
    return {k: v for k, v in item.items() if k not in INTERNAL} if item else None


# ---------------------------------------------------------------- certificate templates
def tpl_key(tid: str) -> tuple[str, str]:
    return f"CERTTPL#{tid}", "CERTTPL"


def get_template(tid: str) -> dict | None:
    return clean(table().get(*tpl_key(tid), consistent=True))


def list_templates(offset: int, limit: int, cursor: str | None):
    from ..admin_common import repository as listing

    return listing.page_items("CERTTPLS", index="gsi1", offset=offset, limit=limit, cursor=cursor)


def count_templates() -> int:
    return int((table().get("COUNTER#CERTTPL", "TOTAL") or {}).get("all", 0))


def active_pointer() -> dict | None:
    return table().get(*ACTIVE_KEY, consistent=True)


def _activation_ops(tid: str, previous: str | None, now: str) -> list[dict]:
    ops: list[dict] = [{"put": {"pk": ACTIVE_KEY[0], "sk": ACTIVE_KEY[1], "template_id": tid, "updated_at": now},
                        "condition": "attribute_not_exists(pk) OR template_id = :prev" if previous else
                        "attribute_not_exists(pk)",
                        "values": {":prev": previous} if previous else None}]
    if previous and previous != tid:
        ops.append({"update": tpl_key(previous), "set": {"is_active": False}, "condition": "attribute_exists(pk)"})
    return ops


def create_template(tpl: dict, *, activate: bool, previous_active: str | None, now: str) -> None:
    item = {"pk": tpl_key(tpl["id"])[0], "sk": "CERTTPL", "gsi1pk": "CERTTPLS",
            "gsi1sk": f"{tpl['created_at']}#{tpl['id']}", **tpl}
    ops: list[dict] = [{"put": item, "condition": "attribute_not_exists(pk)"},
                       {"update": ("COUNTER#CERTTPL", "TOTAL"), "add": {"all": 1}}]
    if activate:
        ops += _activation_ops(tpl["id"], previous_active, now)
    try:
        table().transact([{k: v for k, v in op.items() if v is not None} for op in ops])
    except ConditionFailed:
        raise Conflict("The active template changed concurrently; retry") from None


def update_template(tid: str, sets: dict, *, activate: bool | None, previous_active: str | None,
                    now: str) -> None:
    ops: list[dict] = [{"update": tpl_key(tid), "set": sets, "condition": "attribute_exists(pk)"}]
    if activate is True:
        ops += _activation_ops(tid, previous_active, now)
    elif activate is False and previous_active == tid:
        ops.append({"delete": ACTIVE_KEY, "condition": "template_id = :me", "values": {":me": tid}})
    try:
        table().transact([{k: v for k, v in op.items() if v is not None} for op in ops])
    except ConditionFailed:
        raise Conflict("The template changed concurrently; retry") from None
