"""Clients (domain). Only a super admin reaches these (policy table)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from lambdakit import clock, ids
from lambdakit.errors import ApiError
from lambdakit.pagination import PageRequest, page_meta

from ..audit import writer as audit
from ..billing import repository as billing_repo
from ..identity import Principal
from ..stats import counters
from .views import Client

if TYPE_CHECKING:
    from .models import CreateClient, UpdateClient

LIMIT_FIELDS = ("max_exams_per_month", "max_students_per_exam", "max_questions_per_exam")


def public(c: dict, limits: dict | None = None) -> dict:
    out = Client.model_validate(c).model_dump()
    if limits is not None:
        out["limits"] = {k: limits.get(k) for k in LIMIT_FIELDS}
    return out


def create_client(actor: Principal, body: CreateClient) -> dict:
    from ..billing import subscriptions  # the plan catalogue and entitlements: only creation

    now = clock.now_iso()
    cid = ids.new_id()
    # every settable field as given (a new field of the model needs nothing here)
    client = {"id": cid, **body.model_dump(), "active_status": 1, "created_at": now, "updated_at": now}
    subscription = subscriptions.new_subscription(cid, body.plan_id, now)
    limits = {"client_id": cid, **{k: None for k in LIMIT_FIELDS}, "updated_at": now}
    billing_repo.create_client(client, subscription, limits,
                               counters.merge(counters.ops(cid, clients=1) +
                                              counters.ops(None, **{f"plan#{body.plan_id}": 1})))
    audit.record("client.create", "client", cid, user_id=actor.user_id, client_id=cid,
                 metadata={"after": client})
    return {**public(client, limits), "subscription": subscriptions.public(subscription)}


def list_clients(req: PageRequest, *, have: Mapping[tuple[str, str], dict | None] | None = None
                 ) -> tuple[list[dict], dict]:
    """``have``: items read with authentication (``identity.reads``): the global counters when there."""
    total = int(counters.read(None, have=have).get("clients", 0))
    items = billing_repo.list_by_index("CLIENTS", req)
    return [public(c) for c in items], page_meta(req, total)


def update_client(actor: Principal, cid: str, body: UpdateClient) -> dict:
    bundle = billing_repo.get_client_bundle(cid)
    current = bundle.get("CLIENT")
    if not current:
        raise ApiError("Client not found", code="CLIENT_NOT_FOUND", status=404,
                       details={"resource_type": "client", "resource_id": cid})
    changes = body.model_dump(exclude_unset=True, exclude={"limits"})
    limit_changes = body.limits.model_dump(exclude_unset=True) if body.limits is not None else {}
    now = clock.now_iso()
    if changes:
        changes["updated_at"] = now
    if limit_changes:
        limit_changes["updated_at"] = now
    billing_repo.update_client(cid, changes, limit_changes)
    before = {k: current.get(k) for k in changes if k != "updated_at"}
    after = {k: v for k, v in changes.items() if k != "updated_at"}
    if limit_changes:
        before["limits"] = {k: (bundle.get("LIMITS") or {}).get(k) for k in limit_changes if k != "updated_at"}
        after["limits"] = {k: v for k, v in limit_changes.items() if k != "updated_at"}
    audit.record("client.update", "client", cid, user_id=actor.user_id, client_id=cid,
                 metadata={"before": before, "after": after})
    fresh = billing_repo.get_client_bundle(cid)
    return public(fresh["CLIENT"], fresh.get("LIMITS") or {})
