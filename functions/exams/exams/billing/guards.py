"""Billing guards called where tests (and attempts) are created.

Order of checks: package → client limits → plan limits. A pay-per-test package is consumed
(available → used) exactly once with a conditional write; otherwise one exam is counted
against the tenant's monthly quota with a conditional ADD. The per-test billing record is
written in the same transaction, which also makes ``reserve_test_creation`` idempotent per
``test_id`` (a retry returns the same entitlement without consuming twice).
"""
from __future__ import annotations

from dataclasses import dataclass

from lambdakit import clock
from lambdakit.errors import ApiError, ConditionFailed

from . import repository as repo
from .catalog import PACKAGES, PLANS


@dataclass(frozen=True)
class Entitlement:
    source: str                 # "subscription" | "package"
    plan_id: str | None
    package_id: str | None
    package_type: str | None
    features: frozenset[str]    # analytics, branding, csv, xlsx, advanced_proctoring, camera_proctoring
    max_questions: int | None   # per test; None = unlimited
    max_candidates: int | None  # per test; None = unlimited


def _not_found(kind: str, rid: str, code: str = "NOT_FOUND") -> ApiError:
    return ApiError(f"{kind.capitalize()} not found", code=code, status=404,
                    details={"resource_type": kind, "resource_id": rid})


def _month() -> str:
    return clock.now().strftime("%Y-%m")


def _override(limits: dict | None, name: str, plan_value: int | None) -> int | None:
    """Client limit first (when set), then the plan's."""
    if limits and limits.get(name) is not None:
        v = int(limits[name])
        return None if v < 0 else v
    return plan_value


def _package_entitlement(pkg: dict) -> Entitlement:
    cat = PACKAGES[pkg["package_type"]]
    return Entitlement(
        source="package", plan_id=None, package_id=pkg["id"], package_type=pkg["package_type"],
        features=cat.features,
        max_questions=int(pkg.get("max_questions") or cat.max_questions),
        max_candidates=int(pkg.get("max_candidates") or cat.max_candidates),
    )


def _subscription_entitlement(sub: dict, limits: dict | None) -> Entitlement:
    plan = PLANS.get(sub.get("plan_id") or "free", PLANS["free"])
    return Entitlement(
        source="subscription", plan_id=plan.id, package_id=None, package_type=None, features=plan.features,
        max_questions=_override(limits, "max_questions_per_exam", plan.questions_per_exam),
        max_candidates=_override(limits, "max_students_per_exam", plan.students_per_exam),
    )


def _load_package(client_id: str, package_id: str) -> dict:
    pkg = repo.get_package(package_id)
    if not pkg:
        raise _not_found("package", package_id)
    if pkg.get("client_id") != client_id:  # the spec's cross-tenant rule (issue 32 item 6)
        raise ApiError("This package belongs to another organisation", code="BOLA_VIOLATION", status=403)
    return pkg


def _load_subscription(client_id: str) -> tuple[dict, dict | None]:
    bundle = repo.get_client_bundle(client_id)
    sub = bundle.get("SUBSCRIPTION")
    if not sub or "CLIENT" not in bundle:
        raise _not_found("client", client_id, "CLIENT_NOT_FOUND")
    return sub, bundle.get("LIMITS")


def is_expired(sub: dict) -> bool:
    exp = sub.get("expiry_date")
    return bool(exp) and str(exp) < clock.today()


def entitlement_for(client_id: str, package_id: str | None = None) -> Entitlement:
    if package_id:
        return _package_entitlement(_load_package(client_id, package_id))
    sub, limits = _load_subscription(client_id)
    return _subscription_entitlement(sub, limits)


def _from_record(rec: dict) -> Entitlement:
    return Entitlement(source=rec["source"], plan_id=rec.get("plan_id"), package_id=rec.get("package_id"),
                       package_type=rec.get("package_type"), features=frozenset(rec.get("features") or []),
                       max_questions=rec.get("max_questions"), max_candidates=rec.get("max_candidates"))


def _record(client_id: str, test_id: str, ent: Entitlement, month: str | None) -> dict:
    return {"test_id": test_id, "client_id": client_id, "source": ent.source, "plan_id": ent.plan_id,
            "package_id": ent.package_id, "package_type": ent.package_type, "features": sorted(ent.features),
            "max_questions": ent.max_questions, "max_candidates": ent.max_candidates, "month": month,
            "created_at": clock.now_iso()}


def reserve_test_creation(client_id: str, package_id: str | None, test_id: str) -> Entitlement:
    """Billing checks in order package → client limits → plan limits; consumes the package (available→used,
    exactly once, conditional write) or counts one exam against the monthly quota, atomically.
    Raises ApiError: PACKAGE_ALREADY_USED 409, QUOTA_EXCEEDED 400 details {limit, current_usage, resource},
    SUBSCRIPTION_EXPIRED 400, NOT_FOUND for an unknown package of this tenant."""
    existing = repo.get_test_billing(test_id)
    if existing:
        if existing.get("client_id") != client_id or existing.get("package_id") != (package_id or None):
            raise ApiError("Test already has a billing record", code="CONFLICT", status=409)
        return _from_record(existing)
    if package_id:
        pkg = _load_package(client_id, package_id)
        if pkg["status"] == "used":
            raise ApiError("This package has already been used", code="PACKAGE_ALREADY_USED", status=409,
                           details={"package_id": package_id, "test_id": pkg.get("test_id")})
        if pkg["status"] != "available":
            raise ApiError("This package is not available yet", code="STATE_CONFLICT", status=409,
                           details={"expected_state": "available", "actual_state": pkg["status"]})
        ent = _package_entitlement(pkg)
        now = clock.now_iso()
        try:
            repo.transition_package(pkg, frm="available", to="used",
                                    set={"test_id": test_id, "used_at": now, "updated_at": now},
                                    extra_ops=[repo.put_billing_op(_record(client_id, test_id, ent, None))])
        except ConditionFailed as exc:
            if len(exc.reasons) > 5 and exc.reasons[5] == "ConditionalCheckFailed":
                return _from_record(repo.get_test_billing(test_id) or {})  # a concurrent retry won
            raise ApiError("This package has already been used", code="PACKAGE_ALREADY_USED", status=409,
                           details={"package_id": package_id}) from None
        return ent

    sub, limits = _load_subscription(client_id)
    if sub.get("status") == "expired" or is_expired(sub):
        raise ApiError("The subscription has expired", code="SUBSCRIPTION_EXPIRED", status=400,
                       details={"plan_id": sub.get("plan_id"), "expiry_date": sub.get("expiry_date")})
    plan = PLANS.get(sub.get("plan_id") or "free", PLANS["free"])
    limit = _override(limits, "max_exams_per_month", plan.exams_per_month)
    ent = _subscription_entitlement(sub, limits)
    month = _month()
    try:
        repo.transact([repo.usage_op(client_id, month, 1, limit),
                       repo.put_billing_op(_record(client_id, test_id, ent, month))])
    except ConditionFailed as exc:
        if len(exc.reasons) > 1 and exc.reasons[1] == "ConditionalCheckFailed":
            rec = repo.get_test_billing(test_id)
            if rec:
                return _from_record(rec)
        raise ApiError("Monthly exam quota exceeded", code="QUOTA_EXCEEDED", status=400,
                       details={"limit": limit, "current_usage": repo.get_usage(client_id, month),
                                "resource": "exams_per_month"}) from None
    return ent


def check_question_capacity(client_id: str, ent: Entitlement, requested: int) -> None:
    """INSUFFICIENT_PACKAGE_CAPACITY 400 details {limit, requested, resource} / QUOTA_EXCEEDED."""
    if ent.max_questions is None or requested <= ent.max_questions:
        return
    if ent.source == "package":
        raise ApiError("The package does not allow that many questions", code="INSUFFICIENT_PACKAGE_CAPACITY",
                       status=400, details={"limit": ent.max_questions, "requested": requested,
                                            "resource": "questions"})
    raise ApiError("Question limit of the plan exceeded", code="QUOTA_EXCEEDED", status=400,
                   details={"limit": ent.max_questions, "current_usage": requested,
                            "resource": "questions_per_exam"})


def release_test_creation(client_id: str, ent: Entitlement, test_id: str) -> None:
    """Compensation when the test write fails: give the package back / uncount the exam (idempotent)."""
    rec = repo.get_test_billing(test_id)
    if not rec or rec.get("client_id") != client_id:
        return
    try:
        if rec["source"] == "package" and rec.get("package_id"):
            pkg = repo.get_package(rec["package_id"])
            if pkg and pkg.get("status") == "used" and pkg.get("test_id") == test_id:
                repo.transition_package(pkg, frm="used", to="available",
                                        set={"test_id": None, "used_at": None, "updated_at": clock.now_iso()},
                                        extra_ops=[repo.delete_billing_op(test_id)])
                return
            repo.transact([repo.delete_billing_op(test_id)])
        else:
            repo.transact([repo.delete_billing_op(test_id),
                           repo.usage_op(client_id, rec.get("month") or _month(), -1, None)])
    except ConditionFailed:
        return  # someone else already released it
