"""DynamoDB access for the ADMIN people routes (roles table overrides, users, leads)."""
from __future__ import annotations

from typing import Any

from lambdakit import clock
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, Conflict

from ..settings import settings


def table() -> Table:
    return Table(settings().table_name)


# ---------------------------------------------------------------- role permission overrides
def role_key(role: str) -> tuple[str, str]:
    return f"ROLE#{role}", "PERMISSIONS"


def get_role_override(role: str) -> dict | None:
    return table().get(*role_key(role), consistent=True)


def put_role_override(role: str, permissions: list[str], admin_id: str, expected_version: int | None) -> dict:
    pk, sk = role_key(role)
    cond, values = None, None
    if expected_version is not None:
        cond = "attribute_not_exists(#v) OR #v = :ev" if expected_version == 0 else "#v = :ev"
        values = {":ev": expected_version}
    try:
        return table().update(pk, sk, set={"role": role, "permissions": permissions, "updated_at": clock.now_iso(),
                                           "updated_by": admin_id}, add={"version": 1},
                              condition=cond, names={"#v": "version"} if cond else None, values=values)
    except ConditionFailed:
        raise Conflict("The role was changed by someone else; reload and retry") from None


def delete_role_override(role: str) -> dict | None:
    return table().delete(*role_key(role), return_old=True)
