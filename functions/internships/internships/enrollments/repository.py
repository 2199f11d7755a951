"""Enrollments, open-enrollment guards, order map, webhook de-duplication; the transactions that
move an enrollment between states together with everything that must change with it."""
from __future__ import annotations

from lambdakit.errors import ConditionFailed

from .. import counters
from ..store import clean as _clean
from ..store import table

ENROLL_SK = "ENROLL"



def key(eid: str) -> tuple[str, str]:
    return f"ENROLL#{eid}", ENROLL_SK



def get(eid: str, *, consistent: bool = False) -> dict | None:
    if not eid or len(eid) > 64:
        return None
    return _clean(table().get(*key(eid), consistent=consistent))


def list_for_user(uid: str) -> list[dict]:
    items = table().query_all(f"USER#{uid}#ENROLLS", index="gsi1", forward=False, max_items=200)
    return [_clean(i) for i in items]


def enrollment_for_order(order_id: str) -> dict | None:
    m = table().get(f"ORDER#{order_id}", "ORDER") if order_id and len(order_id) <= 64 else None
    return get(m["enrollment_id"], consistent=True) if m else None


def index_attrs(e: dict, status: str) -> dict:
    return {"gsi1pk": f"USER#{e['user_id']}#ENROLLS", "gsi1sk": f"{e['created_at']}#{e['id']}",
            "gsi2pk": "ENROLLS", "gsi2sk": f"{e['created_at']}#{e['id']}",
            "gsi3pk": f"ENROLLS#{status}", "gsi3sk": f"{e['created_at']}#{e['id']}"}


class CreateRefused(Exception):
    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what  # "open", "limit", "coupon", "domain", "user"


def create(e: dict, *, coupon_op: dict | None, max_open: int | None) -> None:
    pk, sk = key(e["id"])
    user_cond = "attribute_exists(pk)"
    values: dict = {}
    if max_open:
        user_cond += " AND (attribute_not_exists(open_enrollments) OR open_enrollments < :max)"
        values[":max"] = max_open
    ops: list[dict] = [
        {"put": {"pk": f"USER#{e['user_id']}", "sk": f"OPEN#{e['domain_id']}", "enrollment_id": e["id"],
                 "created_at": e["created_at"]}, "condition": "attribute_not_exists(pk)"},
        {"update": (f"USER#{e['user_id']}", "PROFILE"), "add": {"open_enrollments": 1}, "condition": user_cond,
         **({"values": values} if values else {})},
        {"update": (f"DOMAIN#{e['domain_id']}", "DOMAIN"), "add": {"enrollment_count": 1},
         "condition": "attribute_exists(pk) AND is_active = :t", "values": {":t": True}},
        {"put": {"pk": pk, "sk": sk, **index_attrs(e, e["status"]), **e}, "condition": "attribute_not_exists(pk)"},
    ]
    what = ["open", "limit", "domain", "enrollment"]
    if coupon_op:
        ops.append(coupon_op)
        what.append("coupon")
    if e.get("order_id"):
        ops.append({"put": {"pk": f"ORDER#{e['order_id']}", "sk": "ORDER", "enrollment_id": e["id"],
                            "amount_paise": e["amount_paise"]}, "condition": "attribute_not_exists(pk)"})
        what.append("order")
    ops += [counters.op("enrollments"), counters.op(f"enrollments#domain#{e['domain_id']}"),
            *counters.enrollment_status_ops(e["domain_id"], None, e["status"])]
    try:
        table().transact(ops)
    except ConditionFailed as exc:
        for i, r in enumerate(exc.reasons):
            if r == "ConditionalCheckFailed" and i < len(what):
                raise CreateRefused(what[i]) from None
        raise


def activate(e: dict, fields: dict, milestones: list[dict], invoice: dict | None, mail_ops: list[dict]) -> None:
    """pending → active with milestones, invoice (number by compare-and-set), counters and the
    confirmation email (``mail_ops``, last: the transactional outbox).
    ``ConditionFailed`` with reasons: index 0 = the enrollment was not pending; the sequence op
    failing means another invoice took the number (retry)."""
    pk, sk = key(e["id"])
    ops: list[dict] = [
        {"update": (pk, sk), "set": {**fields, "gsi3pk": "ENROLLS#active"},
         "condition": "#st = :pending", "names": {"#st": "status"}, "values": {":pending": "pending"}},
        *counters.enrollment_status_ops(e["domain_id"], "pending", "active"),
    ]
    if e["amount"] > 0:
        ops += [counters.op("payments", 1, amount=e["amount"]),
                counters.op(f"payments#domain#{e['domain_id']}", 1, amount=e["amount"])]
    ops += [{"put": m, "condition": "attribute_not_exists(pk)"} for m in milestones]
    if milestones:
        ops += counters.milestone_status_ops(None, "pending", len(milestones))
    if invoice:
        n, fy = invoice["sequence"], invoice["financial_year"]
        seq = {"update": ("SEQ#INVOICE", f"FY#{fy}"), "set": {"last": n}}
        if n == 1:
            seq["condition"] = "attribute_not_exists(#last)"
            seq["names"] = {"#last": "last"}
        else:
            seq["condition"] = "#last = :prev"
            seq["names"] = {"#last": "last"}
            seq["values"] = {":prev": n - 1}
        ops += [
            seq,
            {"put": {"pk": f"INVOICE#{invoice['id']}", "sk": "INVOICE",
                     "gsi1pk": f"USER#{invoice['user_id']}#INVOICES", "gsi1sk": f"{invoice['issued_at']}#{invoice['id']}",
                     "gsi2pk": "INVOICES", "gsi2sk": f"{invoice['issued_at']}#{invoice['id']}", **invoice},
             "condition": "attribute_not_exists(pk)"},
            {"put": {"pk": f"INVNO#{invoice['number']}", "sk": "INVNO", "invoice_id": invoice["id"]},
             "condition": "attribute_not_exists(pk)"},
            counters.op("invoices"),
            {"update": (f"USER#{e['user_id']}", "PROFILE"), "add": {"invoice_count": 1}},
        ]
    table().transact(ops + mail_ops)


def invoice_sequence(fy: str) -> int:
    item = table().get("SEQ#INVOICE", f"FY#{fy}", consistent=True)
    return int(item.get("last", 0)) if item else 0


def set_fields(eid: str, fields: dict, *, condition: str, names: dict | None = None,
               values: dict | None = None) -> dict:
    return _clean(table().update(*key(eid), set=fields, condition=condition, names=names, values=values,
                                 must_exist=True)) or {}


def submit_project(eid: str, user_id: str, fields: dict, mail_ops: list[dict], *, fresh: tuple[int, ...] = ()) -> None:
    """The final project on an active enrollment of ``user_id`` and the email reporting it
    (``mail_ops``, last: the transactional outbox; ``fresh`` counted from their first) in one
    transaction. ``ConditionFailed``: the enrollment was not active (or not the student's)."""
    ops: list[dict] = [{"update": key(eid), "set": fields, "condition": "#st = :a AND user_id = :u",
                        "names": {"#st": "status"}, "values": {":a": "active", ":u": user_id}}]
    table().transact(ops + mail_ops, fresh=tuple(len(ops) + i for i in fresh))


def cancel(e: dict, *, release_coupon: bool, now: str) -> None:
    pk, sk = key(e["id"])
    ops: list[dict] = [
        {"update": (pk, sk), "set": {"status": "cancelled", "cancelled_at": now, "updated_at": now,
                                     "gsi3pk": "ENROLLS#cancelled"},
         "condition": "#st = :old", "names": {"#st": "status"}, "values": {":old": e["status"]}},
        {"delete": (f"USER#{e['user_id']}", f"OPEN#{e['domain_id']}")},
        {"update": (f"USER#{e['user_id']}", "PROFILE"), "add": {"open_enrollments": -1}},
        *counters.enrollment_status_ops(e["domain_id"], e["status"], "cancelled"),
    ]
    if release_coupon and e.get("coupon_id"):
        from ..coupons.repository import release_op

        ops.append(release_op(e["coupon_id"]))
    table().transact(ops)


def complete(e: dict, cert: dict, now: str, mail_ops: list[dict] | None = None, *,
             fresh: tuple[int, ...] = ()) -> None:
    """→ completed with its certificate (id unique by condition) and the email reporting it
    (``mail_ops``, last: the transactional outbox; ``fresh`` counted from their first) in one
    transaction. ``ConditionFailed`` reasons: index 0 = the enrollment changed; index 1 = the
    certificate id is taken."""
    pk, sk = key(e["id"])
    ops: list[dict] = [
        {"update": (pk, sk), "set": {"status": "completed", "completed_at": now, "updated_at": now,
                                     "certificate_id": cert["certificate_id"], "gsi3pk": "ENROLLS#completed"},
         "condition": "#st = :old", "names": {"#st": "status"}, "values": {":old": e["status"]}},
        {"put": {"pk": f"CERT#{cert['certificate_id']}", "sk": "CERT",
                 "gsi1pk": f"USER#{cert['user_id']}#CERTS", "gsi1sk": cert["issued_at"],
                 "gsi2pk": "CERTS", "gsi2sk": f"{cert['issued_at']}#{cert['certificate_id']}", **cert},
         "condition": "attribute_not_exists(pk)"},
        counters.op("certificates"),
        *counters.enrollment_status_ops(e["domain_id"], e["status"], "completed"),
    ]
    if e["status"] in ("pending", "active"):
        ops += [{"delete": (f"USER#{e['user_id']}", f"OPEN#{e['domain_id']}")},
                {"update": (f"USER#{e['user_id']}", "PROFILE"), "add": {"open_enrollments": -1}}]
    table().transact(ops + (mail_ops or []), fresh=tuple(len(ops) + i for i in fresh))


def webhook_seen(event_id: str) -> bool:
    return table().get(f"WEBHOOK#{event_id}", "EVENT", consistent=True) is not None


def mark_webhook(event_id: str, now: str, ttl: int) -> None:
    table().put({"pk": f"WEBHOOK#{event_id}", "sk": "EVENT", "received_at": now, "ttl": ttl})
