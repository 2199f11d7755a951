"""Billing items (single table).

client        pk=CLIENT#<cid>  sk=CLIENT        gsi1 CLIENTS / <created_at>#<cid>
subscription  pk=CLIENT#<cid>  sk=SUBSCRIPTION  gsi1 SUBSCRIPTIONS / <created_at>#<cid>,
              gsi2 SUBEXPIRY / <expiry_date>#<cid> (sparse: only while an expiry date is set)
limits        pk=CLIENT#<cid>  sk=LIMITS        per-client overrides (null = plan value)
history       pk=CLIENT#<cid>  sk=SUBHIST#<ts>#<id>
usage         pk=CLIENT#<cid>  sk=USAGE#<YYYY-MM>   {exams}
sub request   pk=SUBREQ#<rid>  sk=SUBREQ        gsi1 SUBREQS / ts#rid, gsi2 SUBREQS#CLIENT#<cid> / ts#rid
package       pk=PACKAGE#<pid> sk=PACKAGE       gsi1 PACKAGES / ts#pid, gsi2 PACKAGES#CLIENT#<cid>#<status> / ts#pid
test billing  pk=TESTBILLING#<tid> sk=BILLING
list counters pk=BILLCOUNT sk=SUBREQ#ALL | SUBREQ#<cid> | PKG#ALL | PKG#ALL#<status> | PKG#<cid>#<status>  {n}
"""
from __future__ import annotations

from typing import Any

from lambdakit.conditions import Attr
from lambdakit.ddb import Table
from lambdakit.errors import ApiError, ConditionFailed
from lambdakit.pagination import PageRequest

from ..settings import settings
from ..store import fetch_page

COUNT_PK = "BILLCOUNT"


def table() -> Table:
    return Table(settings().table_name)


def client_pk(cid: str) -> str:
    return f"CLIENT#{cid}"


# ---------------------------------------------------------------- clients / subscriptions
EXPIRY_PK = "SUBEXPIRY"


def expiry_keys(cid: str, expiry_date: str | None) -> dict[str, str]:
    """The sparse expiry index of a subscription: present only when it can expire."""
    return {"gsi2pk": EXPIRY_PK, "gsi2sk": f"{expiry_date}#{cid}"} if expiry_date else {}


def expiring_between(first_day: str, last_day: str, limit: int) -> tuple[list[dict], bool]:
    """Subscriptions whose expiry date lies in [first_day, last_day], soonest first: one query
    of the expiry index bounded by the date range (and ``limit``), never by the number of clients."""
    items, cursor = table().query(EXPIRY_PK, index="gsi2", sk_between=(first_day, last_day + "#\uffff"),
                                  limit=limit, forward=True)
    return items, cursor is not None


def get_client(cid: str, consistent: bool = False) -> dict | None:
    return table().get(client_pk(cid), "CLIENT", consistent=consistent)


def get_subscription(cid: str, consistent: bool = False) -> dict | None:
    return table().get(client_pk(cid), "SUBSCRIPTION", consistent=consistent)


def get_limits(cid: str) -> dict | None:
    return table().get(client_pk(cid), "LIMITS")


def get_client_bundle(cid: str) -> dict[str, dict]:
    """Client, subscription and limits in one query of the client's partition (bounded: the
    partition's fixed items sort before history/usage rows are excluded by key range)."""
    items = table().batch_get([(client_pk(cid), sk) for sk in ("CLIENT", "SUBSCRIPTION", "LIMITS")])
    return {i["sk"]: i for i in items}


def create_client(client: dict, subscription: dict, limits: dict, counter_ops: list[dict]) -> None:
    cid = client["id"]
    key = f"{client['created_at']}#{cid}"
    ops = [
        {"put": {**client, "pk": client_pk(cid), "sk": "CLIENT", "gsi1pk": "CLIENTS", "gsi1sk": key},
         "condition": "attribute_not_exists(pk)"},
        {"put": {**subscription, "pk": client_pk(cid), "sk": "SUBSCRIPTION", "gsi1pk": "SUBSCRIPTIONS",
                 "gsi1sk": key, **expiry_keys(cid, subscription.get("expiry_date"))},
         "condition": "attribute_not_exists(pk)"},
        {"put": {**limits, "pk": client_pk(cid), "sk": "LIMITS"}, "condition": "attribute_not_exists(pk)"},
        *counter_ops,
    ]
    try:
        table().transact(ops)
    except ConditionFailed:
        raise ApiError("Client already exists", code="ALREADY_EXISTS", status=409) from None


def update_client(cid: str, changes: dict, limit_changes: dict | None) -> None:
    ops: list[dict] = []
    if changes:
        ops.append({"update": (client_pk(cid), "CLIENT"), "set": changes, "condition": "attribute_exists(pk)"})
    if limit_changes:
        ops.append({"update": (client_pk(cid), "LIMITS"), "set": limit_changes, "condition": "attribute_exists(pk)"})
    if not ops:
        return
    try:
        table().transact(ops)
    except ConditionFailed:
        raise ApiError("Client not found", code="CLIENT_NOT_FOUND", status=404,
                       details={"resource_type": "client", "resource_id": cid}) from None


def change_subscription(cid: str, *, old_plan: str, new_sub: dict, history: dict, counter_ops: list[dict],
                        extra_ops: list[dict] | None = None) -> None:
    """Plan/expiry change + history row + plan distribution counters (+ e.g. a request approval)
    in one transaction, conditional on the plan read before (no lost updates)."""
    idx = expiry_keys(cid, new_sub.get("expiry_date"))
    ops: list[dict[str, Any]] = [
        {"update": (client_pk(cid), "SUBSCRIPTION"), "set": {**new_sub, **idx},
         **({} if idx else {"remove": ["gsi2pk", "gsi2sk"]}),
         "condition": "attribute_exists(pk) AND #plan = :old", "names": {"#plan": "plan_id"},
         "values": {":old": old_plan}},
        {"update": (client_pk(cid), "CLIENT"), "set": {"plan_id": new_sub["plan_id"]},
         "condition": "attribute_exists(pk)"},
        {"put": {**history, "pk": client_pk(cid), "sk": f"SUBHIST#{history['created_at']}#{history['id']}"}},
        *counter_ops,
        *(extra_ops or []),
    ]
    table().transact(ops)


def mark_subscription_expired(cid: str) -> None:
    try:
        table().update(client_pk(cid), "SUBSCRIPTION", set={"status": "expired"},
                       condition="#s = :active", names={"#s": "status"}, values={":active": "active"})
    except ConditionFailed:
        pass


def list_by_index(pk_value: str, req: PageRequest, *, index: str = "gsi1", forward: bool = False,
                  status: str | None = None) -> list[dict]:
    """Page ``req`` of an index partition; with ``status``, only its items in that status."""
    flt = Attr("status").eq(status) if status else None
    return fetch_page(table(), pk_value, req, index=index, forward=forward, filter=flt)


def batch_subscriptions(cids: list[str]) -> dict[str, dict]:
    items = table().batch_get([(client_pk(c), "SUBSCRIPTION") for c in cids])
    return {i["client_id"]: i for i in items}


# ---------------------------------------------------------------- counters for list totals
def count(sk: str) -> int:
    item = table().get(COUNT_PK, sk)
    return int((item or {}).get("n", 0))


def count_op(sk: str, delta: int) -> dict:
    return {"update": (COUNT_PK, sk), "add": {"n": delta}}


# ---------------------------------------------------------------- subscription requests
def put_subscription_request(req: dict) -> None:
    key = f"{req['created_at']}#{req['id']}"
    table().transact([
        {"put": {**req, "pk": f"SUBREQ#{req['id']}", "sk": "SUBREQ", "gsi1pk": "SUBREQS", "gsi1sk": key,
                 "gsi2pk": f"SUBREQS#CLIENT#{req['client_id']}", "gsi2sk": key},
         "condition": "attribute_not_exists(pk)"},
        count_op("SUBREQ#ALL", 1), count_op(f"SUBREQ#{req['client_id']}", 1),
    ], fresh=(0,))


def get_subscription_request(rid: str) -> dict | None:
    return table().get(f"SUBREQ#{rid}", "SUBREQ", consistent=True)


def approve_request_op(rid: str, actor: str, now: str) -> dict:
    return {"update": (f"SUBREQ#{rid}", "SUBREQ"),
            "set": {"status": "approved", "approved_by": actor, "approved_at": now, "updated_at": now},
            "condition": "#s = :pending", "names": {"#s": "status"}, "values": {":pending": "pending"}}


# ---------------------------------------------------------------- packages
def package_keys(pkg: dict) -> dict:
    key = f"{pkg['created_at']}#{pkg['id']}"
    return {"pk": f"PACKAGE#{pkg['id']}", "sk": "PACKAGE", "gsi1pk": "PACKAGES", "gsi1sk": key,
            "gsi2pk": f"PACKAGES#CLIENT#{pkg['client_id']}#{pkg['status']}", "gsi2sk": key}


def put_package(pkg: dict) -> None:
    table().transact([
        {"put": {**pkg, **package_keys(pkg)}, "condition": "attribute_not_exists(pk)"},
        count_op("PKG#ALL", 1), count_op(f"PKG#ALL#{pkg['status']}", 1),
        count_op(f"PKG#{pkg['client_id']}#{pkg['status']}", 1),
    ], fresh=(0,))


def get_package(pid: str, consistent: bool = True) -> dict | None:
    return table().get(f"PACKAGE#{pid}", "PACKAGE", consistent=consistent)


def transition_package(pkg: dict, *, frm: str, to: str, set: dict, extra_ops: list[dict] | None = None) -> None:
    """Move a package ``frm`` → ``to`` exactly once (ConditionFailed when it is no longer ``frm``)."""
    moved = {**pkg, "status": to}
    ops = [
        {"update": (f"PACKAGE#{pkg['id']}", "PACKAGE"),
         "set": {**set, "status": to, "gsi2pk": package_keys(moved)["gsi2pk"]},
         "condition": "#s = :frm", "names": {"#s": "status"}, "values": {":frm": frm}},
        count_op(f"PKG#{pkg['client_id']}#{frm}", -1), count_op(f"PKG#{pkg['client_id']}#{to}", 1),
        count_op(f"PKG#ALL#{frm}", -1), count_op(f"PKG#ALL#{to}", 1),
        *(extra_ops or []),
    ]
    table().transact(ops)


# ---------------------------------------------------------------- per-test billing & usage
def billing_key(test_id: str) -> tuple[str, str]:
    return f"TESTBILLING#{test_id}", "BILLING"


def get_test_billing(test_id: str) -> dict | None:
    return table().get(*billing_key(test_id), consistent=True)


def put_billing_op(record: dict) -> dict:
    pk, sk = billing_key(record["test_id"])
    return {"put": {**record, "pk": pk, "sk": sk}, "condition": "attribute_not_exists(pk)"}


def delete_billing_op(test_id: str) -> dict:
    return {"delete": billing_key(test_id), "condition": "attribute_exists(pk)"}


def usage_op(cid: str, month: str, delta: int, limit: int | None) -> dict:
    op: dict[str, Any] = {"update": (client_pk(cid), f"USAGE#{month}"), "add": {"exams": delta},
                          "set": {"client_id": cid, "month": month}}
    if limit is not None and delta > 0:
        op["condition"] = "attribute_not_exists(exams) OR exams < :limit"
        op["values"] = {":limit": limit}
    return op


def get_usage(cid: str, month: str) -> int:
    item = table().get(client_pk(cid), f"USAGE#{month}", consistent=True)
    return int((item or {}).get("exams", 0))


def transact(ops: list[dict]) -> None:
    table().transact(ops)
