"""DynamoDB access for the ADMIN people routes (roles table overrides, users, leads)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lambdakit import clock
from lambdakit.conditions import Attr, Condition, all_of
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, Conflict

from ..accounts import phones
from ..auth.permissions import role_key
from ..settings import settings
from ..store import clean as _clean


def table() -> Table:
    return Table(settings().table_name)


# ---------------------------------------------------------------- role permission overrides (key: auth.permissions)
def get_role_override(role: str) -> dict | None:
    return table().get(*role_key(role), consistent=True)


def role_override_op(role: str, permissions: list[str] | None, admin_id: str, expected_version: int | None) -> dict:
    """The transaction op that sets (``permissions``) or resets (``None``: deletes) a role's
    override; with ``expected_version`` the write holds only if nobody changed it meanwhile."""
    pk, sk = role_key(role)
    if permissions is None:
        return {"delete": (pk, sk)}
    op: dict = {"update": (pk, sk), "set": {"role": role, "permissions": permissions, "updated_at": clock.now_iso(),
                                           "updated_by": admin_id}, "add": {"version": 1}}
    if expected_version is not None:
        op.update(condition="attribute_not_exists(#v) OR #v = :ev" if expected_version == 0 else "#v = :ev",
                  names={"#v": "version"}, values={":ev": expected_version})
    return op


def write_role_change(ops: list[dict]) -> None:
    """The override op (first) and its activity entry ops, in one transaction."""
    try:
        table().transact(ops)
    except ConditionFailed as exc:
        if exc.reasons and exc.reasons[0] == "ConditionalCheckFailed":
            raise Conflict("The role was changed by someone else; reload and retry") from None
        raise


# ---------------------------------------------------------------- users (keys owned by accounts, see data model)
USER_SK = "PROFILE"


def get_user(user_id: str) -> dict | None:
    return _clean(table().get(f"USER#{user_id}", USER_SK, consistent=True))


def users_by_ids(user_ids: list[str]) -> dict[str, dict]:
    ids = [u for u in dict.fromkeys(user_ids) if u]
    if not ids:
        return {}
    items = table().batch_get([(f"USER#{u}", USER_SK) for u in ids])
    return {i["id"]: _clean(i) for i in items if i.get("id")}


def count(name: str, read: Mapping[tuple[str, str], dict | None] | None = None) -> int:
    """A counter item's count (eventually consistent); ``read``: items already read (``auth.read_with_auth``)."""
    key = ("COUNTERS", name)
    item = read[key] if read is not None and key in read else table().get(*key)
    return int((item or {}).get("count", 0))


def user_search_filter(search: str | None) -> Condition | None:
    if not search:
        return None
    q = search.strip()
    return (Attr("email").contains(q.lower()) | Attr("name").contains(q) | Attr("name").contains(q.lower())
            | Attr("name").contains(q.title()) | _phone_match(q))


def _phone_match(q: str) -> Condition:
    """Phones are stored in E.164 (``accounts.phones``): a search typed as a phone number with spaces,
    dashes or a ``+`` matches by its digits."""
    digits = phones.search_digits(q)
    return Attr("phone").contains(q) | Attr("phone").contains(digits) if digits else Attr("phone").contains(q)


def list_users(*, role: str | None, search: str | None, offset: int, limit: int, cursor: str | None):
    from ..admin_common import repository as listing

    pk, index = (f"ROLE#{role}", "gsi2") if role else ("USERS", "gsi1")
    return listing.page_items(pk, index=index, filter=user_search_filter(search), offset=offset, limit=limit,
                              cursor=cursor)


def users_counter_key(role: str | None) -> tuple[str, str]:
    """The counter item that totals the users list (no search), of one role or of all."""
    return "COUNTERS", f"users#role#{role}" if role else "users"


def count_users(*, role: str | None, search: str | None,
                read: Mapping[tuple[str, str], dict | None] | None = None) -> tuple[int, bool]:
    if not search:
        return count(users_counter_key(role)[1], read), True
    from ..admin_common import repository as listing

    pk, index = (f"ROLE#{role}", "gsi2") if role else ("USERS", "gsi1")
    return listing.count_items(pk, index=index, filter=user_search_filter(search))


def update_user(user_id: str, fields: dict, remove: list[str] | None = None) -> dict:
    try:
        return _clean(table().update(f"USER#{user_id}", USER_SK, set=fields, remove=remove or None,
                                     must_exist=True))
    except ConditionFailed:
        raise NotFoundUser() from None


class NotFoundUser(Exception):
    pass


class LastSuperAdmin(Exception):
    pass


def change_role(user: dict, new_role: str, now: str) -> None:
    """Role, role index and role counters in one transaction, only if the role is still the one read.
    Demoting a super_admin requires at least two of them (counter check)."""
    old = user["role"]
    ops: list[dict] = [
        {"update": (f"USER#{user['id']}", USER_SK),
         "set": {"role": new_role, "gsi2pk": f"ROLE#{new_role}", "updated_at": now},
         "condition": "#r = :old", "names": {"#r": "role"}, "values": {":old": old}},
        {"update": ("COUNTERS", f"users#role#{old}"), "add": {"count": -1}},
        {"update": ("COUNTERS", f"users#role#{new_role}"), "add": {"count": 1}},
    ]
    if old == "super_admin":
        ops[1]["condition"] = "#c > :one"
        ops[1]["names"] = {"#c": "count"}
        ops[1]["values"] = {":one": 1}
    try:
        table().transact(ops)
    except ConditionFailed as exc:
        if len(exc.reasons) > 1 and exc.reasons[1] == "ConditionalCheckFailed":
            raise LastSuperAdmin() from None
        raise Conflict("The user was changed by someone else; reload and retry") from None


def delete_user(user: dict) -> None:
    ops: list[dict] = [
        {"delete": (f"USER#{user['id']}", USER_SK), "condition": "#r = :role",
         "names": {"#r": "role"}, "values": {":role": user["role"]}},
        {"delete": (f"EMAIL#{user['email'].lower()}", "EMAIL")},
        {"update": ("COUNTERS", "users"), "add": {"count": -1}},
        {"update": ("COUNTERS", f"users#role#{user['role']}"), "add": {"count": -1}},
    ]
    if user["role"] == "super_admin":
        ops[3]["condition"] = "#c > :one"
        ops[3]["names"] = {"#c": "count"}
        ops[3]["values"] = {":one": 1}
    try:
        table().transact(ops)
    except ConditionFailed as exc:
        if len(exc.reasons) > 3 and exc.reasons[3] == "ConditionalCheckFailed":
            raise LastSuperAdmin() from None
        raise Conflict("The user was changed by someone else; reload and retry") from None


def iter_google_avatar_users():
    """Users whose avatar is a Google-hosted URL (walks the users index page by page)."""
    flt = Attr("avatar_url").contains("googleusercontent.com")
    for item in table().iter_query("USERS", index="gsi1", filter=flt):
        yield _clean(item)


def set_avatar_if_unchanged(user_id: str, old: str, new: str, now: str) -> bool:
    try:
        table().update(f"USER#{user_id}", USER_SK, set={"avatar_url": new, "updated_at": now},
                       condition="avatar_url = :old", values={":old": old}, must_exist=True)
        return True
    except ConditionFailed:
        return False


# ---------------------------------------------------------------- password set tokens
def put_password_token(token_hash: str, user_id: str, purpose: str, expires_ts: int, now: str) -> None:
    table().put_new({"pk": f"PWRESET#{token_hash}", "sk": "PWRESET", "user_id": user_id, "purpose": purpose,
                     "created_at": now, "expires_at": expires_ts, "ttl": expires_ts})


# ---------------------------------------------------------------- leads (keys owned by forms, see data model)
LEAD_COUNTER = ("COUNTER#LEADS", "TOTAL")


def get_lead(lead_id: str) -> dict | None:
    return _clean(table().get(f"LEAD#{lead_id}", "LEAD", consistent=True))


def lead_counter(name: str) -> int:
    return int((table().get(*LEAD_COUNTER) or {}).get(name, 0))


def _lead_target(status: str | None) -> tuple[str, str]:
    return (f"LEADSTATUS#{status}", "gsi2") if status else ("LEADS", "gsi1")


def _lead_filter(domain: str | None, search: str | None) -> Condition | None:
    matches: Condition | None = None
    if search:
        q = search.strip()
        matches = (Attr("name").contains(q) | Attr("name").contains(q.lower()) | Attr("name").contains(q.title())
                   | _phone_match(q) | Attr("email").contains(q.lower()))
    return all_of([Attr("domain").eq(domain) if domain else None, matches])


def list_leads(*, status, domain, search, bounds, offset, limit, cursor):
    from ..admin_common import repository as listing

    pk, index = _lead_target(status)
    return listing.page_items(pk, index=index, sk_between=bounds, filter=_lead_filter(domain, search),
                              offset=offset, limit=limit, cursor=cursor)


def count_leads(*, status, domain, search, bounds) -> tuple[int, bool]:
    if not domain and not search and not bounds:
        return lead_counter(f"status:{status}" if status else "all"), True
    from ..admin_common import repository as listing

    pk, index = _lead_target(status)
    return listing.count_items(pk, index=index, sk_between=bounds, filter=_lead_filter(domain, search))


def update_lead(lead: dict, sets: dict, *, new_status: str | None, remove: list[str] | None = None,
                require_not_converted: bool = False) -> dict:
    """Set fields; a status change moves the status index and counters in the same transaction,
    conditional on the status read (exactly one concurrent writer wins)."""
    pk = f"LEAD#{lead['id']}"
    old = lead.get("status", "new")
    cond = "#st = :old"
    names, values = {"#st": "status"}, {":old": old}
    if require_not_converted:
        cond += " AND #st <> :conv"
        values[":conv"] = "converted"
    upd: dict = {"update": (pk, "LEAD"), "set": dict(sets), "condition": cond, "names": names, "values": values}
    if remove:
        upd["remove"] = remove
    ops = [upd]
    if new_status and new_status != old:
        upd["set"].update({"status": new_status, "gsi2pk": f"LEADSTATUS#{new_status}"})
        ops.append({"update": LEAD_COUNTER, "add": {f"status:{old}": -1, f"status:{new_status}": 1}})
    try:
        if len(ops) == 1:
            table().update(pk, "LEAD", set=upd["set"], remove=remove, condition=cond, names=names, values=values,
                           must_exist=True)
        else:
            table().transact(ops)
    except ConditionFailed:
        raise Conflict("The lead was changed by someone else; reload and retry") from None
    return get_lead(lead["id"]) or {}


def delete_lead(lead: dict) -> bool:
    ops: list[dict[str, Any]] = [{"delete": (f"LEAD#{lead['id']}", "LEAD"), "condition": "attribute_exists(pk)"},
           {"update": LEAD_COUNTER, "add": {"all": -1, f"status:{lead.get('status', 'new')}": -1,
                                            f"source:{lead.get('source', 'website')}": -1}}]
    try:
        table().transact(ops)
    except ConditionFailed:
        return False
    return True
