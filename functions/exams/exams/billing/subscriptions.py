"""Subscriptions (domain): creation, plan changes with history, lazy expiry, plan-change requests."""
from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Mapping

from lambdakit import clock, ids
from lambdakit.errors import ApiError, ConditionFailed
from lambdakit.pagination import PageRequest, page_meta

from ..audit import writer as audit
from ..identity import Principal, tenant_scope
from ..stats import counters
from . import repository as repo
from .catalog import PLANS
from .guards import is_expired
from .views import Subscription, SubscriptionRequest

DEFAULT_EXPIRY = "default"  # one month from now for paid plans, never for free


def add_month(day: dt.date) -> dt.date:
    y, m = (day.year + 1, 1) if day.month == 12 else (day.year, day.month + 1)
    return day.replace(year=y, month=m, day=min(day.day, calendar.monthrange(y, m)[1]))


def new_subscription(cid: str, plan_id: str, now: str) -> dict:
    start = clock.parse_iso(now).date()
    expiry = add_month(start).isoformat() if PLANS[plan_id].expires else None
    return {"client_id": cid, "plan_id": plan_id, "status": "active", "start_date": start.isoformat(),
            "expiry_date": expiry, "created_at": now, "updated_at": now}


def public(sub: dict) -> dict:
    """A subscription as its answer shows it: ``views.Subscription``'s fields (null when unset) and the plan."""
    out = {k: sub.get(k) for k in Subscription.model_fields if k != "plan"}
    plan = PLANS.get(sub.get("plan_id") or "free")
    out["plan"] = plan.to_dict() if plan else None
    return out


def _not_found(cid: str) -> ApiError:
    return ApiError("Client not found", code="CLIENT_NOT_FOUND", status=404,
                    details={"resource_type": "client", "resource_id": cid})


def list_subscriptions(req: PageRequest, *, have: Mapping[tuple[str, str], dict | None] | None = None
                       ) -> tuple[list[dict], dict]:
    """All client subscriptions; expiry is checked lazily here (spec rule 8). ``have``: items read
    with authentication (``identity.reads``): the global counters when there."""
    total = int(counters.read(None, have=have).get("clients", 0))
    subs = repo.list_by_index("SUBSCRIPTIONS", req)
    out = []
    for s in subs:
        if s.get("status") == "active" and is_expired(s):
            repo.mark_subscription_expired(s["client_id"])
            s = {**s, "status": "expired"}
        out.append(public(s))
    return out, page_meta(req, total)


def change_plan(actor: Principal, cid: str, plan_id: str, expiry_date: str | None, *, source: str,
                extra_ops: list[dict] | None = None, request_id: str | None = None) -> dict:
    """Set plan/expiry, write a history row, move the plan distribution counters: one transaction."""
    for _ in range(3):
        sub = repo.get_subscription(cid, consistent=True)
        if not sub:
            raise _not_found(cid)
        now = clock.now_iso()
        if expiry_date == DEFAULT_EXPIRY:
            expiry = add_month(clock.now().date()).isoformat() if PLANS[plan_id].expires else None
        else:
            expiry = expiry_date
        new = {"plan_id": plan_id, "expiry_date": expiry, "updated_at": now,
               "status": "expired" if expiry and expiry < clock.today() else "active"}
        history = {"id": ids.new_id(), "client_id": cid, "from_plan": sub["plan_id"], "to_plan": plan_id,
                   "from_expiry": sub.get("expiry_date"), "to_expiry": expiry, "changed_by": actor.user_id,
                   "source": source, "request_id": request_id, "created_at": now}
        plan_ops = []
        if sub["plan_id"] != plan_id:
            plan_ops = counters.ops(None, **{f"plan#{sub['plan_id']}": -1, f"plan#{plan_id}": 1})
        try:
            repo.change_subscription(cid, old_plan=sub["plan_id"], new_sub=new, history=history,
                                     counter_ops=plan_ops, extra_ops=extra_ops)
        except ConditionFailed as exc:
            if extra_ops and len(exc.reasons) > 3 + len(plan_ops) and \
                    exc.reasons[3 + len(plan_ops)] == "ConditionalCheckFailed":
                raise ApiError("The request is no longer pending", code="STATE_CONFLICT", status=409,
                               details={"expected_state": "pending", "actual_state": "approved"}) from None
            if exc.reasons and exc.reasons[0] == "ConditionalCheckFailed":
                continue  # plan changed concurrently: re-read and retry
            raise
        audit.record("subscription.update", "subscription", cid, user_id=actor.user_id, client_id=cid,
                     metadata={"before": {"plan_id": sub["plan_id"], "expiry_date": sub.get("expiry_date")},
                               "after": {"plan_id": plan_id, "expiry_date": expiry}, "source": source})
        return public({**sub, **new})
    raise ApiError("The subscription was changed concurrently; retry", code="CONFLICT", status=409)


# ---------------------------------------------------------------- subscription requests
def create_request(actor: Principal, plan_id: str, note: str | None) -> dict:
    cid = actor.client_id
    sub = repo.get_subscription(cid) if cid else None
    if not sub:
        raise _not_found(cid or "")
    now = clock.now_iso()
    req = {"id": ids.new_id(), "client_id": cid, "plan_id": plan_id, "current_plan_id": sub["plan_id"],
           "status": "pending", "note": note, "requested_by": actor.user_id, "created_at": now, "updated_at": now}
    repo.put_subscription_request(req)
    audit.record("subscription_request.create", "subscription_request", req["id"], user_id=actor.user_id,
                 client_id=cid, metadata={"after": {"plan_id": plan_id, "status": "pending"}})
    return public_request(req)


def public_request(r: dict) -> dict:
    """A plan-change request as its answer shows it: ``views.SubscriptionRequest``'s fields (null when
    unset; the subscription only on approval)."""
    return {k: r.get(k) for k in SubscriptionRequest.model_fields if k != "subscription"}


def list_requests(actor: Principal, client_id: str | None, req: PageRequest) -> tuple[list[dict], dict]:
    scope = tenant_scope(actor, client_id)
    if scope:
        total = repo.count(f"SUBREQ#{scope}")
        items = repo.list_by_index(f"SUBREQS#CLIENT#{scope}", req, index="gsi2")
    else:
        total = repo.count("SUBREQ#ALL")
        items = repo.list_by_index("SUBREQS", req)
    return [public_request(i) for i in items], page_meta(req, total)


def approve_request(actor: Principal, request_id: str) -> dict:
    r = repo.get_subscription_request(request_id)
    if not r:
        raise ApiError("Subscription request not found", code="NOT_FOUND", status=404,
                       details={"resource_type": "subscription_request", "resource_id": request_id})
    if r["status"] != "pending":
        raise ApiError("The request is no longer pending", code="STATE_CONFLICT", status=409,
                       details={"expected_state": "pending", "actual_state": r["status"]})
    now = clock.now_iso()
    sub = change_plan(actor, r["client_id"], r["plan_id"], DEFAULT_EXPIRY, source="request",
                      extra_ops=[repo.approve_request_op(request_id, actor.user_id, now)], request_id=request_id)
    audit.record("subscription_request.approve", "subscription_request", request_id, user_id=actor.user_id,
                 client_id=r["client_id"], metadata={"before": {"status": "pending"},
                                                     "after": {"status": "approved", "plan_id": r["plan_id"]}})
    return {**public_request({**r, "status": "approved", "approved_by": actor.user_id, "approved_at": now,
                              "updated_at": now}), "subscription": sub}
