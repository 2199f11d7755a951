"""List items: ``pk=ACCT#<a>``, ``sk=LIST#<id>`` carrying the list's member counters
(``contact_count`` and one counter per contact status), plus the ``STATS#LISTS`` counter
item (``total``). Members are ``pk=ACCT#<a>#LIST#<id>#M``, ``sk=C#<seq>#<contact_id>`` (owned by
contacts)."""
from __future__ import annotations

from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, NotFound

from ..common import keys
from ..settings import settings

STATUSES = ("active", "unsubscribed", "bounced")


def table() -> Table:
    return Table(settings().table_name)


def create(a: str, item: dict) -> None:
    pk, sk = keys.list_key(a, item["id"])
    spk, ssk = keys.stats_key(a, "LISTS")
    table().transact([
        {"put": {"pk": pk, "sk": sk, **item}, "condition": "attribute_not_exists(pk)"},
        {"update": (spk, ssk), "add": {"total": 1}},
    ], fresh=(0,))  # a freshly minted id: a key collision is 503 CONTENTION, never a 500


def get(a: str, list_id: str, *, consistent: bool = False) -> dict | None:
    return table().get(*keys.list_key(a, list_id), consistent=consistent)


def update(a: str, list_id: str, changes: dict) -> dict:
    try:
        return table().update(*keys.list_key(a, list_id), set=changes, must_exist=True)
    except ConditionFailed:
        raise NotFound("List not found") from None


def delete(a: str, list_id: str) -> None:
    pk, sk = keys.list_key(a, list_id)
    spk, ssk = keys.stats_key(a, "LISTS")
    try:
        table().transact([
            {"delete": (pk, sk), "condition": "attribute_exists(pk)"},
            {"update": (spk, ssk), "add": {"total": -1}},
        ])
    except ConditionFailed:
        raise NotFound("List not found") from None


def total(a: str) -> int:
    item = table().get(*keys.stats_key(a, "LISTS"))
    return int((item or {}).get("total", 0))


def page(a: str, limit: int, cursor: dict | None) -> tuple[list[dict], dict | None]:
    return table().query(keys.acct(a), sk_prefix="LIST#", limit=limit, cursor=cursor, forward=False)


def member_page(a: str, list_id: str, limit: int, cursor: dict | None) -> tuple[list[dict], dict | None]:
    return table().query(keys.list_members_pk(a, list_id), limit=limit, cursor=cursor)
