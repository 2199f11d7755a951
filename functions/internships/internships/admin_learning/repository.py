"""DynamoDB access for the ADMIN learning routes.

Certificate templates: ``pk="CERTTPL#<id>"``, ``sk="CERTTPL"``; ``gsi1pk="CERTTPLS"``,
``gsi1sk="<created_at>#<id>"``. The active one is named by ``pk="CERTTPL"``, ``sk="ACTIVE"``
(``template_id``), and carries ``is_active`` itself; activation flips both in one transaction.
The keys and the two reads live in ``documents.repository`` (the certificate PDF reads the active one).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from lambdakit.conditions import Attr, Condition, all_of, any_of
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, Conflict

from ..documents.repository import ACTIVE_TEMPLATE_KEY, template_key
from ..settings import settings
from ..store import clean


def table() -> Table:
    return Table(settings().table_name)


# ---------------------------------------------------------------- certificate templates
def list_templates(offset: int, limit: int, cursor: str | None):
    from ..admin_common import repository as listing

    return listing.page_items("CERTTPLS", index="gsi1", offset=offset, limit=limit, cursor=cursor)


def count_templates() -> int:
    return int((table().get("COUNTER#CERTTPL", "TOTAL") or {}).get("all", 0))


def _activation_ops(tid: str, previous: str | None, now: str) -> list[dict]:
    ops: list[dict] = [{"put": {"pk": ACTIVE_TEMPLATE_KEY[0], "sk": ACTIVE_TEMPLATE_KEY[1], "template_id": tid,
                                "updated_at": now},
                        "condition": "attribute_not_exists(pk) OR template_id = :prev" if previous else
                        "attribute_not_exists(pk)",
                        "values": {":prev": previous} if previous else None}]
    if previous and previous != tid:
        ops.append({"update": template_key(previous), "set": {"is_active": False},
                    "condition": "attribute_exists(pk)"})
    return ops


def create_template(tpl: dict, *, activate: bool, previous_active: str | None, now: str) -> None:
    item = {"pk": template_key(tpl["id"])[0], "sk": "CERTTPL", "gsi1pk": "CERTTPLS",
            "gsi1sk": f"{tpl['created_at']}#{tpl['id']}", **tpl}
    ops: list[dict] = [{"put": item, "condition": "attribute_not_exists(pk)"},
                       {"update": ("COUNTER#CERTTPL", "TOTAL"), "add": {"all": 1}}]
    if activate:
        ops += _activation_ops(tpl["id"], previous_active, now)
    try:
        table().transact([{k: v for k, v in op.items() if v is not None} for op in ops])
    except ConditionFailed:
        raise Conflict("The active template changed concurrently; retry") from None


def update_template(tid: str, sets: dict, *, activate: bool | None, previous_active: str | None,
                    now: str) -> None:
    ops: list[dict] = [{"update": template_key(tid), "set": sets, "condition": "attribute_exists(pk)"}]
    if activate is True:
        ops += _activation_ops(tid, previous_active, now)
    elif activate is False and previous_active == tid:
        ops.append({"delete": ACTIVE_TEMPLATE_KEY, "condition": "template_id = :me", "values": {":me": tid}})
    try:
        table().transact([{k: v for k, v in op.items() if v is not None} for op in ops])
    except ConditionFailed:
        raise Conflict("The template changed concurrently; retry") from None


# ---------------------------------------------------------------- shared list helpers
def count(name: str) -> int:
    return int((table().get("COUNTERS", name) or {}).get("count", 0))


def attr_filter(eq: dict | None = None, contains_any: tuple[list[str], str] | None = None,
                exists: Iterable[str] = ()) -> Condition | None:
    parts: list[Condition | None] = [Attr(k).eq(v) for k, v in (eq or {}).items()]
    parts += [Attr(k).exists() for k in exists]
    if contains_any:
        attrs, q = contains_any
        parts.append(any_of(Attr(a).contains(variant) for a in attrs
                            for variant in dict.fromkeys([q, q.lower(), q.title(), q.upper()])))
    return all_of(parts)


def page(pk: str, index: str, *, flt=None, bounds=None, offset: int, limit: int, cursor: str | None):
    from ..admin_common import repository as listing

    return listing.page_items(pk, index=index, filter=flt, sk_between=bounds, offset=offset, limit=limit,
                              cursor=cursor)


def count_query(pk: str, index: str, *, flt=None, bounds=None) -> tuple[int, bool]:
    from ..admin_common import repository as listing

    return listing.count_items(pk, index=index, filter=flt, sk_between=bounds)


# ---------------------------------------------------------------- enrollments & milestones (JOURNEY's keys)
def get_enrollment(eid: str) -> dict | None:
    return clean(table().get(f"ENROLL#{eid}", "ENROLL", consistent=True))


def milestones_of(eid: str) -> list[dict]:
    """The enrollment's milestones as the enrollment's routes show them (without the copies of the
    enrollment's own attributes, ``plan.ENROLLMENT_COPY``: the review queue's)."""
    from ..learning.plan import ENROLLMENT_COPY

    items = table().query_all(f"ENROLL#{eid}", sk_prefix="MS#", consistent=True, max_items=200)
    return [{k: v for k, v in clean(m).items() if k not in ENROLLMENT_COPY} for m in items]


def get_domain(did: str) -> dict | None:
    return clean(table().get(f"DOMAIN#{did}", "DOMAIN"))


def set_enrollment(e: dict, sets: dict, remove: list[str] | None = None) -> dict:
    try:
        return clean(table().update(f"ENROLL#{e['id']}", "ENROLL", set=sets, remove=remove or None,
                                    condition="#st = :old", names={"#st": "status"}, values={":old": e["status"]},
                                    must_exist=True))
    except ConditionFailed:
        raise Conflict("The enrollment was changed by someone else; reload and retry") from None


def cancel_enrollment(e: dict, now: str) -> None:
    """The accounts/enrollments slice's cancel transaction (status, index, counters, open guard,
    coupon use given back when unpaid)."""
    from ..enrollments import repository as enrollments

    try:
        enrollments.cancel(e, release_coupon=e["status"] == "pending" and e.get("payment_status") != "paid",
                           now=now)
    except ConditionFailed:
        raise Conflict("The enrollment was changed by someone else; reload and retry") from None


def create_missing_milestones(items: list[dict]) -> int:
    """Put each milestone item (keys included) only if absent — never overwrites one that exists —
    with its status counter in the same transaction."""
    from .. import counters

    created = 0
    for item in items:
        try:
            table().transact([{"put": item, "condition": "attribute_not_exists(pk)"},
                              *counters.milestone_status_ops(None, item["status"])])
            created += 1
        except ConditionFailed:
            continue
    return created


def set_milestone_count(eid: str, n: int, now: str) -> None:
    table().update(f"ENROLL#{eid}", "ENROLL", set={"milestone_count": n, "updated_at": now}, must_exist=True)


# ---------------------------------------------------------------- certificates & invoices (JOURNEY's keys)
def get_certificate(cid: str) -> dict | None:
    return clean(table().get(f"CERT#{cid}", "CERT", consistent=True))


def set_revoked(cid: str, revoked: bool, sets: dict, remove: list[str], status_index: int | None = None) -> dict:
    """Revoke or un-revoke, with the certificate's credential status-list entry (issue 34) in the same
    transaction: conditioned on the status index read (``status_index``; none yet: still none), so a
    credential's first index and a revocation never miss each other."""
    from ..credentials.repository import entry_op

    values: dict[str, Any] = {":f": False} if revoked else {":t": True}
    index_cond = "attribute_not_exists(status_index)"
    if status_index is not None:
        index_cond, values[":i"] = "status_index = :i", status_index
    ops: list[dict[str, Any]] = [
        {"update": (f"CERT#{cid}", "CERT"), "set": {**sets, "revoked": revoked}, "remove": remove or None,
         "condition": "attribute_exists(pk) AND " + ("(attribute_not_exists(revoked) OR revoked = :f)" if revoked
                                                     else "revoked = :t") + " AND " + index_cond,
         "values": values},
        {"update": ("COUNTERS", "certificates#revoked"), "add": {"count": 1 if revoked else -1}}]
    if status_index is not None:
        ops.append(entry_op(int(status_index), revoked, cid))
    table().transact([{k: v for k, v in op.items() if v is not None} for op in ops])
    return get_certificate(cid) or {}


def get_invoice(iid: str) -> dict | None:
    return clean(table().get(f"INVOICE#{iid}", "INVOICE", consistent=True))


def mark_invoice_sent(iid: str, email_id: str, now: str) -> None:
    table().update(f"INVOICE#{iid}", "INVOICE", set={"last_sent_at": now, "last_email_id": email_id},
                   add={"send_count": 1}, must_exist=True)


# ---------------------------------------------------------------- resources (ADMIN writes, JOURNEY reads)
def res_key(rid: str) -> tuple[str, str]:
    return f"RESOURCE#{rid}", "RESOURCE"


def resource_item(r: dict) -> dict:
    return {"pk": f"RESOURCE#{r['id']}", "sk": "RESOURCE",
            "gsi1pk": f"DOMAIN#{r['domain_id']}#RESOURCES",
            "gsi1sk": f"W#{int(r['week']):03d}#{int(r.get('position', 0)):04d}#{r['id']}",
            "gsi2pk": "RESOURCES", "gsi2sk": f"{r['created_at']}#{r['id']}", **r}


def get_resource(rid: str) -> dict | None:
    return clean(table().get(*res_key(rid), consistent=True))


def create_resource(r: dict) -> None:
    table().transact([{"put": resource_item(r), "condition": "attribute_not_exists(pk)"},
                      {"update": ("COUNTERS", "resources"), "add": {"count": 1}}])


def replace_resource(r: dict, expected_updated_at: str) -> None:
    try:
        table().put(resource_item(r), condition="attribute_exists(pk) AND updated_at = :u",
                    values={":u": expected_updated_at})
    except ConditionFailed:
        raise Conflict("The resource was changed by someone else; reload and retry") from None


def delete_resource(rid: str) -> bool:
    try:
        table().transact([{"delete": res_key(rid), "condition": "attribute_exists(pk)"},
                          {"update": ("COUNTERS", "resources"), "add": {"count": -1}}])
    except ConditionFailed:
        return False
    return True


def s3_put(key: str, data: bytes, content_type: str) -> None:
    """Store an uploaded resource file; S3 failures are ``lambdakit.s3``'s domain errors (503/500)."""
    from lambdakit import s3

    s3.put(settings().files_bucket, key, data, content_type=content_type)


def presign(method: str, key: str, expires: int, content_type: str | None = None) -> str:
    from lambdakit import s3

    params = {"ContentType": content_type} if content_type and method == "put_object" else {}
    return s3.presign_url(method, settings().files_bucket, key, expires, **params)


def set_submission(eid: str, status: str, remarks: str, admin_id: str, now: str) -> None:
    try:
        table().update(f"ENROLL#{eid}", "ENROLL",
                       set={"project_status": status, "submission_remarks": remarks,
                            "submission_reviewed_by": admin_id, "submission_reviewed_at": now, "updated_at": now},
                       condition="attribute_exists(submitted_at) AND (attribute_not_exists(project_status) "
                                 "OR project_status = :s)", values={":s": "submitted"}, must_exist=True)
    except ConditionFailed:
        raise Conflict("The submission was already decided") from None


def counter_key(name: str) -> tuple[str, str]:
    return "COUNTERS", name


def counts_and_enrollments(names: list[str], eids: list, read: Mapping[tuple[str, str], dict | None] | None = None
                           ) -> tuple[dict[str, int], dict[str, dict]]:
    """Several counters (missing ones are absent) and the enrollments of ``eids`` (by id) in one
    BatchGetItem, eventually consistent; the two kinds of item told apart by their partition key.
    ``read``: items already read (``auth.read_with_auth``): counters among them are not read again
    (nothing is read when they all are and ``eids`` is empty)."""
    read = read or {}
    counters: dict[str, int] = {}
    for n in names:
        if counter_key(n) in read and (got := read[counter_key(n)]) is not None:
            counters[n] = int(got.get("count", 0))
    keys = [counter_key(n) for n in names if counter_key(n) not in read]
    keys += [(f"ENROLL#{e}", "ENROLL") for e in dict.fromkeys(eids) if e]
    enrollments: dict[str, dict] = {}
    if not keys:
        return counters, enrollments
    for i in table().batch_get(keys):
        if i["pk"] == "COUNTERS":
            counters[i["sk"]] = int(i.get("count", 0))
        else:
            enrollments[i["id"]] = clean(i)
    return counters, enrollments
