"""API key items.

- ``pk=ACCT#<account>``, ``sk=APIKEY#<key_id>``: the record (listing = one key query).
- ``pk=APIKEYHASH#<sha256(secret)>``, ``sk=APIKEY``: the authentication item, a copy of
  the fields needed to authorise a request, so a request costs one consistent GetItem.
Both are written and revoked in one transaction.
- ``pk=ACCT#<account>``, ``sk=ACCOUNT``: the account record an operator creates (``tools/account.py``:
  ``id, name, plan, postal_address, status, created_at, disabled_at``); ``pk=ACCOUNTS``, ``sk=<account>``
  its directory entry (the operator's listing, never a request path). A key is written only while its
  account is not disabled (a condition check in the key's transaction; accounts without a record -
  the dev bootstrap and older data - are active), and disabling an account marks every key's
  authentication item ``account_status=disabled``, which ``authenticate`` refuses.
"""
from __future__ import annotations

from collections.abc import Iterator

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


ACCOUNT_SK = "ACCOUNT"


class AccountDisabled(Exception):
    """The key's account is disabled: no key is written."""


def put_key(record: dict, secret_hash: str) -> None:
    pk, sk = _hash_key(secret_hash)
    auth = {k: record[k] for k in ("account_id", "key_id", "name", "scopes", "role", "plan", "restrictions")}
    try:
        _table().transact([
            {"put": {"pk": _pk(record["account_id"]), "sk": f"APIKEY#{record['key_id']}",
                     "secret_hash": secret_hash, **record}, "condition": "attribute_not_exists(pk)"},
            {"put": {"pk": pk, "sk": sk, **auth}, "condition": "attribute_not_exists(pk)"},
            {"check": (_pk(record["account_id"]), ACCOUNT_SK),
             "condition": "attribute_not_exists(pk) OR #s <> :disabled", "names": {"#s": "status"},
             "values": {":disabled": "disabled"}},
        ], fresh=(0, 1))  # a fresh key id and a random secret's hash: a collision is 503, never a 500
    except ConditionFailed as exc:
        if 2 in exc.failed_ops:
            raise AccountDisabled(record["account_id"]) from None
        raise


# ---------------------------------------------------------------- accounts (operator command)
def put_account(account: dict) -> None:
    """The account record and its directory entry; refuses an existing id."""
    _table().transact([
        {"put": {"pk": _pk(account["id"]), "sk": ACCOUNT_SK, **account}, "condition": "attribute_not_exists(pk)"},
        {"put": {"pk": "ACCOUNTS", "sk": account["id"], "name": account["name"], "plan": account["plan"],
                 "status": account["status"], "created_at": account["created_at"]},
         "condition": "attribute_not_exists(pk)"},
    ])


def get_account(account_id: str) -> dict | None:
    item = _table().get(_pk(account_id), ACCOUNT_SK, consistent=True)
    return {k: v for k, v in item.items() if k not in ("pk", "sk")} if item else None


def list_accounts(limit: int = 10_000) -> list[dict]:
    return [{"id": i["sk"], **{k: v for k, v in i.items() if k not in ("pk", "sk")}}
            for i in _table().query_all("ACCOUNTS", max_items=limit)]


def set_account_disabled(account_id: str, now: str) -> None:
    _table().transact([
        {"update": (_pk(account_id), ACCOUNT_SK), "set": {"status": "disabled", "disabled_at": now},
         "condition": "attribute_exists(pk)"},
        {"update": ("ACCOUNTS", account_id), "set": {"status": "disabled"}, "condition": "attribute_exists(pk)"},
    ])


def mark_key_account_disabled(secret_hash: str) -> None:
    """Stamp one key's authentication item (gone already when the key was revoked: nothing to do)."""
    pk, sk = _hash_key(secret_hash)
    try:
        _table().update(pk, sk, set={"account_status": "disabled"}, condition="attribute_exists(pk)")
    except ConditionFailed:
        pass


def get_by_hash(secret_hash: str) -> dict | None:
    pk, sk = _hash_key(secret_hash)
    return _table().get(pk, sk, consistent=True)


def get_key(account_id: str, key_id: str) -> dict | None:
    return _table().get(_pk(account_id), f"APIKEY#{key_id}")


def list_keys(account_id: str, limit: int = 1000) -> list[dict]:
    return _table().query_all(_pk(account_id), sk_prefix="APIKEY#", max_items=limit)


def iter_all_keys(account_id: str) -> Iterator[dict]:
    """Every key record of the account, strongly consistent, page by page (the operator's disable)."""
    return _table().iter_query(_pk(account_id), sk_prefix="APIKEY#", consistent=True)


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
