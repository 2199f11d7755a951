"""Insight: folding graded attempts (worker), test analytics with Moodle item statistics,
student analytics, and the SA/CA dashboards from maintained counters."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lambdakit import clock
from lambdakit.errors import ApiError, NotFound, ValidationFailed

from ..identity import Principal, ensure_object_tenant, ensure_self, tenant_scope, tenant_student
from . import repository as repo

FOLD_TTL_SECONDS = 15 * 86400


# ------------------------------------------------------------------ worker
def fold_attempt(attempt_id: str) -> int:
    from ..attempts import repository as arepo
    from . import itemstats

    a = arepo.get(attempt_id, consistent=True)
    if not a or a.get("status") != "submitted" or int(a.get("pending_manual") or 0) > 0:
        # not foldable: its state change did not happen (or not yet: that change puts a new entry)
        arepo.clear_fold_due(attempt_id)
        return 0
    test_add, per_q = itemstats.fold_increments(a.get("results") or [])
    n = repo.fold(a, test_add, per_q, day=a["submitted_at"][:10], ttl=int(clock.now_ts()) + FOLD_TTL_SECONDS)
    arepo.clear_fold_due(attempt_id)  # after the fold: a crash in between re-queues a harmless fold
    return n


# ------------------------------------------------------------------ test analytics
def _r(x: Any, nd: int = 6) -> Any:
    return round(x, nd) if isinstance(x, float) else x


def test_analytics(p: Principal, test_id: str) -> dict:
    from ..attempts import repository as arepo
    from ..papers.service import key_and_test
    from . import itemstats  # item statistics (and grading's definitions): only the analytics routes

    key_item, t = key_and_test(test_id)
    if not t or t.get("deleted_at"):
        raise NotFound("Test not found", code="TEST_NOT_FOUND", details={"resource_type": "test", "resource_id": test_id})
    ensure_object_tenant(p, t["client_id"])
    stats = repo.test_stats(test_id)
    started = int(arepo.count("TATT", test_id).get("started") or 0)
    n = int(stats.get("n") or 0)
    keys = (key_item or {}).get("keys") or {}
    items = repo.item_stats(test_id) if keys else {}
    negative = bool(t.get("negative_marking"))
    per_q, variances, dichotomous = [], [], True
    bands = {"easy": 0, "medium": 0, "hard": 0, "not_enough_data": 0}
    for qid in [q for s in (t.get("sections") or [{"question_ids": t.get("question_ids") or []}])
                for q in s.get("question_ids") or []]:
        k = keys.get(qid)
        if not k:
            continue
        marks = float(k.get("m") or 0)
        lo = -marks * float(k.get("nr") or 0) if negative else 0.0
        s = itemstats.item_statistics(items.get(qid, {}), max_mark=marks, min_mark=lo)
        if lo != 0 or k.get("t") in ("subjective", "coding"):
            dichotomous = False
        variances.append(s.get("variance") or 0.0)
        bands[s.get("difficulty") or "not_enough_data"] += 1
        per_q.append({"question_id": qid, "question_type": k.get("t"), "max_marks": marks,
                      **{kk: _r(v) for kk, v in s.items() if kk not in ("variance",)}})
    ts = itemstats.test_statistics(stats, variances, dichotomous=dichotomous)
    return {
        "test_id": test_id, "test_name": t.get("test_name"),
        "total_attempts": started, "completed": n,
        "average_score": _r(float(stats.get("score_sum") or 0) / n) if n else 0,
        "average_percentage": _r(float(stats.get("pct_sum") or 0) / n) if n else 0,
        "pass_rate": _r(100.0 * int(stats.get("passed") or 0) / n) if n else 0,
        "average_time_taken": _r(float(stats.get("time_sum") or 0) / n) if n else 0,
        "test_statistics": {k: _r(v) for k, v in ts.items()},
        "difficulty_analysis": {**bands, "questions": per_q},
    }


# ------------------------------------------------------------------ student analytics
def student_analytics(p: Principal, student_id: str) -> dict:
    from ..attempts import repository as arepo

    if p.is_student:
        ensure_self(p, student_id)
    attempts = arepo.all_for_student(student_id, limit=200)
    if p.is_client_admin:
        tenant_student(student_id, p.client_id)  # 403 BOLA_VIOLATION for another tenant's student
        attempts = [a for a in attempts if a.get("client_id") == p.client_id]
    visible = {}
    done = [a for a in attempts if a.get("status") == "submitted"]
    per_test: dict[str, dict] = {}
    for a in done:
        tid = a["test_id"]
        if tid not in visible:
            from ..attempts.views import results_visible
            from ..papers import repository as trepo

            visible[tid] = results_visible(p, trepo.get(tid))
        if not visible[tid]:
            continue
        e = per_test.setdefault(tid, {"test_id": tid, "test_name": a.get("test_name"), "attempts": 0,
                                      "best_percentage": None, "last_percentage": None, "scores": []})
        e["attempts"] += 1
        pct = float(a.get("percentage") or 0)
        e["best_percentage"] = pct if e["best_percentage"] is None else max(e["best_percentage"], pct)
        e["scores"].append({"attempt_id": a["id"], "score": a.get("score"), "total_marks": a.get("total_marks"),
                            "percentage": pct, "submitted_at": a.get("submitted_at")})
    trend = sorted(({"submitted_at": s["submitted_at"], "test_id": e["test_id"], "percentage": s["percentage"]}
                    for e in per_test.values() for s in e["scores"]), key=lambda x: x["submitted_at"] or "")
    for e in per_test.values():
        e["scores"].sort(key=lambda s: s["submitted_at"] or "")
        e["last_percentage"] = e["scores"][-1]["percentage"] if e["scores"] else None
    pcts = [x["percentage"] for x in trend]
    slope = _slope(pcts)
    return {"student_id": student_id, "attempts": len(attempts), "completed": len(done),
            "in_progress": sum(1 for a in attempts if a.get("status") == "in_progress"),
            "average_percentage": _r(sum(pcts) / len(pcts)) if pcts else None,
            "per_test": list(per_test.values()), "trend": trend,
            "trend_direction": None if slope is None else ("improving" if slope > 0.5 else
                                                          "declining" if slope < -0.5 else "steady"),
            "trend_slope": _r(slope) if slope is not None else None}


def _slope(ys: list[float]) -> float | None:
    n = len(ys)
    if n < 2:
        return None
    mx = (n - 1) / 2
    my = sum(ys) / n
    den = sum((i - mx) ** 2 for i in range(n))
    return sum((i - mx) * (y - my) for i, y in enumerate(ys)) / den


# ------------------------------------------------------------------ dashboards
def _num(d: dict, k: str) -> float:
    v = d.get(k) or 0
    return int(v) if float(v) == int(v) else float(v)


def dashboard(p: Principal, client_id: str | None, *, have: Mapping[tuple[str, str], dict | None] | None = None
              ) -> dict:
    """``have``: items read with authentication (``identity.reads``): the counters and today's
    activity of the dashboard's tenant (or the global ones) when there."""
    if p.is_super_admin and not client_id:
        return _super_admin_dashboard(have)
    cid = tenant_scope(p, client_id)
    if not cid:
        raise ValidationFailed("client_id is required", fields={"client_id": "Required"})
    return _client_dashboard(cid, have)


def _super_admin_dashboard(have: Mapping[tuple[str, str], dict | None] | None = None) -> dict:
    from lambdakit.model import dump

    from ..stats import counters
    from .models import TOP_ORGANISATIONS, SuperAdminDashboard, Totals

    today = clock.today()
    act_key = repo.activity_key(today, None)
    c, found = counters.read_with(None, [act_key], have=have)  # the counters and today's activity: one call
    act = found.get(act_key) or {}
    plans = {k.split("#", 1)[1]: int(v) for k, v in c.items() if k.startswith("plan#")}
    rank = repo.org_rank()
    top = sorted(rank.items(), key=lambda x: -x[1])[:TOP_ORGANISATIONS]
    subs = _expiring_subs()
    # the names of the top organisations and of the expiring subscriptions' clients: one BatchGetItem
    wanted = list(dict.fromkeys([cid for cid, _ in top] + [s["client_id"] for s in subs]))
    names = repo.clients(wanted) if wanted else {}
    started, submitted = int(_num(c, "attempts")), int(_num(c, "attempts_submitted"))
    return dump(SuperAdminDashboard, {
        "role": "super_admin",
        "totals": {k: int(_num(c, k)) for k in Totals.model_fields},  # each counter the view declares
        "plan_distribution": plans,
        "expiring_subscriptions": _expiring_rows(subs, names),
        "activity_today": {"date": today, "attempts_started": int(_num(act, "started")),
                           "attempts_submitted": int(_num(act, "submitted")),
                           "proctoring_events": int(_num(act, "events"))},
        "top_organisations": [{"client_id": cid, "name": (names.get(cid) or {}).get("name"), "submitted_attempts": n}
                              for cid, n in top],
        "live_load": {"attempts_in_progress": max(0, started - submitted),
                      "attempts_started_today": int(_num(act, "started"))},
        "average_score": round(float(c.get("score_sum") or 0) / submitted, 4) if submitted else 0,
    }, exclude_unset=True)


def _expiring(days: int | None = None, limit: int = 100) -> list[dict]:
    """Subscriptions expiring within ``days`` (default ``models.EXPIRING_WITHIN_DAYS``; today
    included), soonest first, from the sparse
    expiry index: one query bounded by the date range and ``limit``, plus one BatchGetItem for
    the client names."""
    subs = _expiring_subs(days, limit)
    return _expiring_rows(subs, repo.clients([s["client_id"] for s in subs]) if subs else {})


def _expiring_subs(days: int | None = None, limit: int = 100) -> list[dict]:
    import datetime as _d

    from ..billing import repository as billing_repo
    from .models import EXPIRING_WITHIN_DAYS

    days = EXPIRING_WITHIN_DAYS if days is None else days
    horizon = (clock.now() + _d.timedelta(days=days)).strftime("%Y-%m-%d")
    subs, _more = billing_repo.expiring_between(clock.today(), horizon, limit)
    return subs


def _expiring_rows(subs: list[dict], names: dict[str, dict]) -> list[dict]:
    return [{"client_id": s["client_id"], "name": (names.get(s["client_id"]) or {}).get("name"),
             "plan_id": s.get("plan_id"), "status": s.get("status"), "expiry_date": s.get("expiry_date")}
            for s in subs]


def _client_dashboard(cid: str, have: Mapping[tuple[str, str], dict | None] | None = None) -> dict:
    from lambdakit.model import dump

    from ..attempts import repository as arepo
    from ..papers import repository as trepo
    from ..stats import counters
    from .models import RECENT_TESTS, TOP_PERFORMERS, ClientDashboard, Counts

    act_key = repo.activity_key(clock.today(), cid)
    c, found = counters.read_with(cid, [act_key], have=have)  # the counters and today's activity: one call
    act = found.get(act_key) or {}
    submitted = int(_num(c, "attempts_submitted"))
    top_attempts = arepo.top_for_client(cid, 25)
    seen, top = set(), []
    for a in top_attempts:
        who = a.get("student_id") or f"guest:{a['id']}"
        if who in seen:
            continue
        seen.add(who)
        top.append({"student_id": a.get("student_id"), "guest_name": a.get("guest_name"), "attempt_id": a["id"],
                    "test_id": a["test_id"], "test_name": a.get("test_name"), "percentage": a.get("percentage"),
                    "score": a.get("score"), "total_marks": a.get("total_marks")})
        if len(top) == TOP_PERFORMERS:
            break
    tests = trepo.recent(cid, RECENT_TESTS)
    st = repo.many_test_stats([t["id"] for t in tests]) if tests else {}
    breakdown = []
    for t in tests:
        s = st.get(t["id"], {})
        n = int((s.get("stats") or {}).get("n") or 0)
        breakdown.append({"test_id": t["id"], "test_name": t.get("test_name"), "status": t.get("status"),
                          "attempts": int((s.get("count") or {}).get("started") or 0), "completed": n,
                          "average_percentage": round(float(s["stats"].get("pct_sum") or 0) / n, 4) if n else 0,
                          "pass_rate": round(100.0 * int(s["stats"].get("passed") or 0) / n, 4) if n else 0})
    return dump(ClientDashboard, {
        "role": "client_admin", "client_id": cid,
        "counts": {k: int(_num(c, k)) for k in Counts.model_fields},  # each counter the view declares
        "average_score": round(float(c.get("score_sum") or 0) / submitted, 4) if submitted else 0,
        "pass_rate": round(100.0 * float(c.get("pass_count") or 0) / submitted, 4) if submitted else 0,
        "top_performers": top,
        "per_test": breakdown,
        "usage_vs_limits": _usage(cid, c),
        "activity_today": {"attempts_started": int(_num(act, "started")),
                           "attempts_submitted": int(_num(act, "submitted"))},
    }, exclude_unset=True)


def _usage(cid: str, c: dict) -> dict:
    from ..billing import repository as brepo
    from ..billing.catalog import PLANS
    from ..billing.guards import entitlement_for

    try:
        ent = entitlement_for(cid)
    except ApiError:
        return {}
    plan = PLANS.get(ent.plan_id or "free")
    month = clock.now().strftime("%Y-%m")
    return {"plan_id": ent.plan_id, "month": month,
            "exams_this_month": brepo.get_usage(cid, month),
            "exams_per_month_limit": plan.exams_per_month if plan else None,
            "questions_per_exam_limit": ent.max_questions, "students_per_exam_limit": ent.max_candidates,
            "features": sorted(ent.features)}
