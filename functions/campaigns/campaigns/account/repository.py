"""The account record in DynamoDB (data access).

- ``ACCT#{a}`` / ``ACCOUNT``  the account's settings: ``postal_address`` (string, may be empty),
  ``updated_at``. Absent until the account's settings are first written (by ``PUT /account`` or by
  an operator creating the account): an absent record reads as empty settings.
"""
from __future__ import annotations

from lambdakit import clock
from lambdakit.ddb import Table

from ..settings import settings

SK = "ACCOUNT"


def table() -> Table:
    return Table(settings().table_name)


def get(account_id: str) -> dict:
    item = table().get(f"ACCT#{account_id}", SK) or {}
    return {"account_id": account_id, "postal_address": str(item.get("postal_address") or ""),
            "updated_at": item.get("updated_at")}


def set_postal_address(account_id: str, postal_address: str) -> dict:
    now = clock.now_iso()
    table().update(f"ACCT#{account_id}", SK, set={"postal_address": postal_address, "updated_at": now,
                                                  "account_id": account_id}, return_values="NONE")
    return {"account_id": account_id, "postal_address": postal_address, "updated_at": now}
