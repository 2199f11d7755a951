"""Template items ``pk=ACCT#<a>``, ``sk=TPL#<id>`` and the ``STATS#TEMPLATES`` counter."""
from __future__ import annotations

from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, NotFound

from ..common import keys
from ..settings import settings


def _t() -> Table:
    return Table(settings().table_name)


def create(a: str, item: dict) -> None:
    _t().transact([
        {"put": {"pk": keys.acct(a), "sk": f"TPL#{item['id']}", **item}, "condition": "attribute_not_exists(pk)"},
        {"update": keys.stats_key(a, "TEMPLATES"), "add": {"total": 1}},
    ], fresh=(0,))  # a freshly minted id: a key collision is 503 CONTENTION, never a 500


def get(a: str, tid: str) -> dict | None:
    return _t().get(keys.acct(a), f"TPL#{tid}")


def update(a: str, tid: str, changes: dict) -> dict:
    try:
        return _t().update(keys.acct(a), f"TPL#{tid}", set=changes, must_exist=True)
    except ConditionFailed:
        raise NotFound("Template not found") from None


def delete(a: str, tid: str) -> None:
    try:
        _t().transact([
            {"delete": (keys.acct(a), f"TPL#{tid}"), "condition": "attribute_exists(pk)"},
            {"update": keys.stats_key(a, "TEMPLATES"), "add": {"total": -1}},
        ])
    except ConditionFailed:
        raise NotFound("Template not found") from None


def total(a: str) -> int:
    return int((_t().get(*keys.stats_key(a, "TEMPLATES")) or {}).get("total", 0))


def page(a: str, limit: int, cursor: dict | None) -> tuple[list[dict], dict | None]:
    return _t().query(keys.acct(a), sk_prefix="TPL#", limit=limit, cursor=cursor, forward=False)
