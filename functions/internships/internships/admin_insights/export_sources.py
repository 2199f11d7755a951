"""Row sources of the CSV export: key queries over the data model's list indexes.

Each source validates its ``filters`` (unknown keys → 400) and returns ``(columns, rows)``
where ``rows`` is a lazy generator, so 50,000 rows never sit in memory at once.
"""
from __future__ import annotations

from typing import Any, Callable

from lambdakit.conditions import all_of
from lambdakit.errors import ValidationFailed

from ..admin_common.dates import iso_bounds
from . import repository as repo


def _check(filters: dict, allowed: tuple[str, ...], entity: str) -> dict:
    aliases = {"domainId": "domain_id", "paymentStatus": "payment_status", "dateFrom": "date_from",
               "dateTo": "date_to"}
    out: dict[str, Any] = {}
    for k, v in (filters or {}).items():
        key = aliases.get(k, k)
        if key not in allowed:
            raise ValidationFailed(f"Unknown filter for {entity}: {k}; allowed: {', '.join(allowed)}",
                                   fields={f"filters.{k}": "Unknown filter"})
        if v is None or v == "":
            continue
        if not isinstance(v, (str, int, float, bool)):
            raise ValidationFailed(f"filters.{k} must be a scalar", fields={f"filters.{k}": "Must be a scalar"})
        out[key] = v
    return out


def _bounds(f: dict):
    return iso_bounds(f.get("date_from"), f.get("date_to"), from_name="filters.date_from",
                      to_name="filters.date_to")


USER_COLUMNS = ["id", "name", "email", "role", "phone", "college", "degree", "branch", "year_of_study",
                "graduation_year", "city", "state", "country", "disabled", "created_at"]


def users(filters: dict):
    f = _check(filters, ("role", "date_from", "date_to"), "users")
    pk, index = (f"ROLE#{f['role']}", "gsi2") if f.get("role") else ("USERS", "gsi1")
    return USER_COLUMNS, repo.iter_index(pk, index=index, sk_between=_bounds(f), columns=USER_COLUMNS)


ENROLLMENT_COLUMNS = ["id", "user_id", "student_name", "student_email", "domain_id", "domain_name", "duration",
                      "status", "payment_status", "price", "discount", "amount", "coupon_code", "payment_id",
                      "order_id", "created_at", "paid_at", "completed_at", "cancelled_at", "certificate_id",
                      "invoice_id"]
ENROLLMENT_STATUSES = ("pending", "active", "completed", "cancelled")


def enrollments(filters: dict):
    f = _check(filters, ("status", "domain_id", "payment_status", "date_from", "date_to"), "enrollments")
    if f.get("status") and f["status"] not in ENROLLMENT_STATUSES:
        raise ValidationFailed("filters.status is not an enrollment status", fields={"filters.status": "Unknown"})
    pk, index = (f"ENROLLS#{f['status']}", "gsi3") if f.get("status") else ("ENROLLS", "gsi2")
    conds = [repo.attr_eq(k, f[k]) for k in ("domain_id", "payment_status") if k in f]
    return ENROLLMENT_COLUMNS, repo.iter_index(pk, index=index, sk_between=_bounds(f), filter=all_of(conds),
                                               columns=ENROLLMENT_COLUMNS)


CERT_COLUMNS = ["certificate_id", "student_name", "student_email", "domain_name", "duration", "issue_date",
                "expiry_at", "revoked", "revoked_at", "enrollment_id", "user_id"]


def certificates(filters: dict):
    f = _check(filters, ("domain_id", "revoked", "date_from", "date_to"), "certificates")
    conds = []
    if "domain_id" in f:
        conds.append(repo.attr_eq("domain_id", f["domain_id"]))
    if "revoked" in f:
        if not isinstance(f["revoked"], bool):
            raise ValidationFailed("filters.revoked must be a boolean", fields={"filters.revoked": "Boolean"})
        conds.append(repo.attr_eq("revoked", f["revoked"]))
    return CERT_COLUMNS, repo.iter_index("CERTS", index="gsi2", sk_between=_bounds(f), filter=all_of(conds),
                                         columns=CERT_COLUMNS)


DOMAIN_COLUMNS = ["id", "name", "slug", "is_active", "price_1", "price_2", "price_3", "milestones",
                  "enrollment_count", "created_at"]


def domains(filters: dict):
    f = _check(filters, ("is_active",), "domains")

    def rows():
        for d in repo.list_domains():
            if "is_active" in f and bool(d.get("is_active")) != bool(f["is_active"]):
                continue
            prices = d.get("prices") or {}
            yield {**d, "price_1": prices.get("1"), "price_2": prices.get("2"), "price_3": prices.get("3"),
                   "milestones": len(d.get("milestones") or [])}

    return DOMAIN_COLUMNS, rows()


SOURCES: dict[str, Callable] = {"users": users, "enrollments": enrollments, "certificates": certificates,
                                "domains": domains}
