"""API key items.

- ``pk=ACCT#<account>``, ``sk=APIKEY#<key_id>``: the record (listing = one key query).
- ``pk=APIKEYHASH#<sha256(secret)>``, ``sk=APIKEY``: the authentication item, a copy of
  the fields needed to authorise a request, so a request costs one consistent GetItem.
Both are written and revoked in one transaction.
"""
from __future__ import annotations

from lambdakit import ratelimit
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, NotFound

from ..settings import settings


def _table() -> Table:
    return Table(settings().table_name)


def _pk(account_id: str) -> str:
    return f"ACCT#{account_id}"


def _hash_key(secret_hash: str) -> tuple[str, str]:
    return f"APIKEYHASH#{secret_hash}", "APIKEY"


def put_key(record: dict, secret_hash: str) -> None:
    pk, sk = _hash_key(secret_hash)
    auth = {k: record[k] for k in ("account_id", "key_id", "name", "scopes", "role", "plan", "restrictions")}
    _table().transact([
        {"put": {"pk": _pk(record["account_id"]), "sk": f"APIKEY#{record['key_id']}", "secret_hash": secret_hash,
                 **record}, "condition": "attribute_not_exists(pk)"},
        {"put": {"pk": pk, "sk": sk, **auth}, "condition": "attribute_not_exists(pk)"},
    ], fresh=(0, 1))  # a fresh key id and a random secret's hash: a collision is 503, never a 500


def get_by_hash(secret_hash: str) -> dict | None:
    pk, sk = _hash_key(secret_hash)
    return _table().get(pk, sk, consistent=True)


def get_key(account_id: str, key_id: str) -> dict | None:
    return _table().get(_pk(account_id), f"APIKEY#{key_id}")


def list_keys(account_id: str, limit: int = 1000) -> list[dict]:
    return _table().query_all(_pk(account_id), sk_prefix="APIKEY#", max_items=limit)


def revoke(account_id: str, key_id: str, secret_hash: str, now: str) -> None:
    pk, sk = _hash_key(secret_hash)
    try:
        _table().transact([
            {"update": (_pk(account_id), f"APIKEY#{key_id}"), "set": {"status": "revoked", "revoked_at": now},
             "condition": "attribute_exists(pk) AND #s = :active", "names": {"#s": "status"},
             "values": {":active": "active"}},
            {"delete": (pk, sk)},
        ])
    except ConditionFailed:
        raise NotFound("API key not found") from None


def rate_hit(subject: str, limit: int, window: int) -> ratelimit.RateDecision:
    return ratelimit.hit(_table(), subject, limit, window)
