"""DynamoDB access for the activity log.

Items (single table):
- entry: ``pk="ACTLOG"``, ``sk="<created_at>#<id>"``; ``gsi1pk="ACTLOG#ADMIN#<admin_id>"``,
  ``gsi2pk="ACTLOG#ENTITY#<entity_type>"``, ``gsi3pk="ACTLOG#ACTION#<action_type>"``
  (each ``gsiNsk`` = ``sk``), so every list is newest-first by a key query.
- counters: ``pk="COUNTER#ACTLOG"``, ``sk="TOTAL"`` with numeric attributes ``all``,
  ``entity:<type>``, ``action:<type>`` (closed sets of names), and one item per admin,
  ``sk="ADMIN#<admin_id>"`` with ``n``: the number of admins only grows, so their counters are
  items of their own, never a map on ``TOTAL`` (issue 23 rule 3).
"""
from __future__ import annotations

from lambdakit.conditions import Attr, Condition, all_of
from lambdakit.ddb import Table

from ..admin_common import repository as listing
from ..settings import settings

PK = "ACTLOG"
COUNTER_PK, COUNTER_SK = "COUNTER#ACTLOG", "TOTAL"

INDEX_FOR = {"admin_id": ("gsi1", "ACTLOG#ADMIN#"), "entity_type": ("gsi2", "ACTLOG#ENTITY#"),
             "action_type": ("gsi3", "ACTLOG#ACTION#")}
COUNTER_DIM = {"admin_id": "admin", "entity_type": "entity", "action_type": "action"}


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
    counters = {"all": 1, counter_attr("entity", entry["entity_type"]): 1,
                counter_attr("action", entry["action_type"]): 1}
    return [{"put": item, "condition": "attribute_not_exists(pk)"},
            {"update": (COUNTER_PK, COUNTER_SK), "add": counters},
            {"update": (COUNTER_PK, f"ADMIN#{entry['admin_id']}"), "add": {"n": 1}}]


def write(entry: dict) -> None:
    table().transact(entry_ops(entry))


def counter(dimension: str | None, value: str | None) -> int:
    if dimension == "admin_id":
        return int(listing.get_counters(COUNTER_PK, f"ADMIN#{value or ''}").get("n", 0))
    c = listing.get_counters(COUNTER_PK, COUNTER_SK)
    key = "all" if dimension is None else counter_attr(COUNTER_DIM[dimension], value or "")
    return int(c.get(key, 0))


def _target(filters: dict) -> tuple[str | None, str]:
    for dim in ("admin_id", "entity_type", "action_type"):
        if dim in filters:
            idx, prefix = INDEX_FOR[dim]
            return idx, prefix + filters[dim]
    return None, PK


def _filter_expr(filters: dict, primary: str | None, search: str | None) -> Condition | None:
    parts: list[Condition | None] = [Attr(dim).eq(filters[dim]) for dim in ("admin_id", "entity_type", "action_type")
                                      if dim in filters and dim != primary]
    parts.append(Attr("search_text").contains(search.lower()) if search else None)
    return all_of(parts)


def list_entries(filters: dict, *, search: str | None, bounds: tuple[str, str] | None, offset: int, limit: int,
                 cursor: str | None) -> tuple[list[dict], str | None]:
    index, pk_value = _target(filters)
    primary = next((d for d in ("admin_id", "entity_type", "action_type") if d in filters), None)
    return listing.page_items(pk_value, index=index, sk_between=bounds, filter=_filter_expr(filters, primary, search),
                              offset=offset, limit=limit, cursor=cursor)


def count_entries(filters: dict, *, search: str | None, bounds: tuple[str, str] | None) -> tuple[int, bool]:
    index, pk_value = _target(filters)
    primary = next((d for d in ("admin_id", "entity_type", "action_type") if d in filters), None)
    return listing.count_items(pk_value, index=index, sk_between=bounds, filter=_filter_expr(filters, primary, search))
