"""Pay-per-test packages (domain): requested → available (SA approval) → used (test creation)."""
from __future__ import annotations

from typing import Any

from lambdakit import clock, ids
from lambdakit.errors import ApiError, ConditionFailed
from lambdakit.pagination import PageRequest, page_meta

from ..audit import writer as audit
from ..identity import Principal, tenant_scope
from . import repository as repo
from .catalog import PACKAGES
from .views import Package


def public(p: dict) -> dict:
    """A package as its answer shows it: the response model's fields (``views.Package``), null when unset."""
    return {k: p.get(k) for k in Package.model_fields}


def request_package(actor: Principal, package_type: str) -> dict:
    cat = PACKAGES[package_type]
    now = clock.now_iso()
    pkg: dict[str, Any] = {
        "id": ids.new_id(), "client_id": actor.client_id, "package_type": package_type, "status": "requested",
        "price_inr": cat.price_inr, "max_questions": cat.max_questions, "max_candidates": cat.max_candidates,
        "features": sorted(cat.features), "requested_by": actor.user_id, "created_at": now, "updated_at": now}
    repo.put_package(pkg)
    audit.record("package.request", "package", pkg["id"], user_id=actor.user_id, client_id=actor.client_id,
                 metadata={"after": {"package_type": package_type, "status": "requested"}})
    return public(pkg)


def list_requests(status: str | None, req: PageRequest) -> tuple[list[dict], dict]:
    """All package purchases, newest first (super admin), optionally by status."""
    if status:
        items = repo.list_by_index("PACKAGES", req, status=status)
        return [public(p) for p in items], page_meta(req, repo.count(f"PKG#ALL#{status}"))
    return [public(p) for p in repo.list_by_index("PACKAGES", req)], page_meta(req, repo.count("PKG#ALL"))


def approve(actor: Principal, package_id: str, overrides: dict) -> dict:
    pkg = repo.get_package(package_id)
    if not pkg:
        raise ApiError("Package request not found", code="NOT_FOUND", status=404,
                       details={"resource_type": "package_request", "resource_id": package_id})
    if pkg["status"] != "requested":
        raise ApiError("The package request is not pending", code="STATE_CONFLICT", status=409,
                       details={"expected_state": "requested", "actual_state": pkg["status"]})
    now = clock.now_iso()
    changes = {"approved_by": actor.user_id, "approved_at": now, "updated_at": now,
               **{k: v for k, v in overrides.items() if v is not None}}
    try:
        repo.transition_package(pkg, frm="requested", to="available", set=changes)
    except ConditionFailed:
        fresh = repo.get_package(package_id) or {}
        raise ApiError("The package request is not pending", code="STATE_CONFLICT", status=409,
                       details={"expected_state": "requested", "actual_state": fresh.get("status")}) from None
    audit.record("package.approve", "package", package_id, user_id=actor.user_id, client_id=pkg["client_id"],
                 metadata={"before": {"status": "requested", "max_questions": pkg.get("max_questions"),
                                      "max_candidates": pkg.get("max_candidates")},
                           "after": {"status": "available", **{k: v for k, v in overrides.items() if v is not None}}})
    return public({**pkg, **changes, "status": "available"})


def list_available(actor: Principal, client_id: str | None, req: PageRequest) -> tuple[list[dict], dict]:
    scope = tenant_scope(actor, client_id)
    if not scope:
        from lambdakit.errors import ValidationFailed

        raise ValidationFailed("client_id is required", fields={"client_id": "Field required"})
    items = repo.list_by_index(f"PACKAGES#CLIENT#{scope}#available", req, index="gsi2")
    return [public(p) for p in items], page_meta(req, repo.count(f"PKG#{scope}#available"))
