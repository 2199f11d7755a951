"""DynamoDB access for the activity log.

Items (single table):
- entry: ``pk="ACTLOG"``, ``sk="<created_at>#<id>"``; ``gsi1pk="ACTLOG#ADMIN#<admin_id>"``,
  ``gsi2pk="ACTLOG#ENTITY#<entity_type>"``, ``gsi3pk="ACTLOG#ACTION#<action_type>"``
  (each ``gsiNsk`` = ``sk``), so every list is newest-first by a key query.
- counters: ``pk="COUNTER#ACTLOG"``, ``sk="TOTAL"`` with numeric attributes ``all``,
  ``admin:<id>``, ``entity:<type>``, ``action:<type>``.
"""
from __future__ import annotations

from typing import Any

from lambdakit.ddb import Table

from ..settings import settings

PK = "ACTLOG"
COUNTER_PK, COUNTER_SK = "COUNTER#ACTLOG", "TOTAL"

INDEX_FOR = {"admin_id": ("gsi1", "ACTLOG#ADMIN#"), "entity_type": ("gsi2", "ACTLOG#ENTITY#"),
             "action_type": ("gsi3", "ACTLOG#ACTION#")}


def table() -> Table:
    return Table(settings().table_name)


def counter_attr(dimension: str, value: str) -> str:
    # attribute names are free-form in DynamoDB; '.' would be read as a path by build_update
    return f"{dimension}:{value}".replace(".", "_")


def entry_ops(entry: dict) -> list[dict]:
    sk = f"{entry['created_at']}#{entry['id']}"
    item = {"pk": PK, "sk": sk,
            "gsi1pk": INDEX_FOR["admin_id"][1] + entry["admin_id"], "gsi1sk": sk,
            "gsi2pk": INDEX_FOR["entity_type"][1] + entry["entity_type"], "gsi2sk": sk,
            "gsi3pk": INDEX_FOR["action_type"][1] + entry["action_type"], "gsi3sk": sk,
            **entry}
    counters = {"all": 1, counter_attr("admin", entry["admin_id"]): 1,
                counter_attr("entity", entry["entity_type"]): 1, counter_attr("action", entry["action_type"]): 1}
    return [{"put": item, "condition": "attribute_not_exists(pk)"},
            {"update": (COUNTER_PK, COUNTER_SK), "add": counters}]


def write(entry: dict) -> None:
    table().transact(entry_ops(entry))


def counters() -> dict[str, Any]:
    return table().get(COUNTER_PK, COUNTER_SK) or {}


def query_page(*, index: str | None, pk_value: str, sk_between: tuple[str, str] | None, filter: Any,
               limit: int, cursor: dict | None) -> tuple[list[dict], dict | None]:
    return table().query(pk_value, index=index, sk_between=sk_between, filter=filter, limit=limit,
                         cursor=cursor, forward=False)


def count(*, index: str | None, pk_value: str, sk_between: tuple[str, str] | None, filter: Any,
          max_pages: int = 50) -> tuple[int, bool]:
    """Count matching entries with ``Select=COUNT`` pages; ``(count, exact)``."""
    t = table()
    total, cursor, pages = 0, None, 0
    while True:
        from boto3.dynamodb.conditions import Key

        pk_attr, sk_attr = ("pk", "sk") if index is None else (f"{index}pk", f"{index}sk")
        cond = Key(pk_attr).eq(pk_value)
        if sk_between:
            cond = cond & Key(sk_attr).between(*sk_between)
        kw: dict[str, Any] = {"KeyConditionExpression": cond, "Select": "COUNT"}
        if index:
            kw["IndexName"] = index
        if filter is not None:
            kw["FilterExpression"] = filter
        if cursor:
            kw["ExclusiveStartKey"] = cursor
        resp = t.raw.query(**kw)
        total += int(resp.get("Count", 0))
        cursor = resp.get("LastEvaluatedKey")
        pages += 1
        if not cursor:
            return total, True
        if pages >= max_pages:
            return total, False
