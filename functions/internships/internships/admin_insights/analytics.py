"""Admin analytics, answered from counters maintained at write time (never by scanning).

``platform``/``domains`` are cached 60 s in DynamoDB (``pk="CACHE#ANALYTICS"``) so every
Lambda instance shares one cache; the response says how old it is (``X-Cache-Age``).
Counter items read (``pk="COUNTERS"``, attribute ``count`` unless noted) are documented in
docs/internships-admin.md.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lambdakit import clock

from ..settings import settings
from . import repository as repo

ROLES = ("student", "admin", "super_admin", "project_admin", "reviewer")
ENROLLMENT_STATUSES = ("pending", "active", "completed", "cancelled")
LEAD_STATUSES = ("new", "contacted", "qualified", "converted", "lost")
MILESTONE_STATUSES = ("pending", "submitted", "reviewed", "rejected")


def _revenue(c: dict, name: str = "payments") -> float:
    return round(float(_n(c, name, "amount")), 2)


def _n(items: dict, name: str, attr: str = "count") -> float:
    v = (items.get(name) or {}).get(attr, 0)
    return v if isinstance(v, (int, float)) else 0


def _ratio(a: float, b: float) -> float:
    return round(a / b, 4) if b else 0.0


def platform() -> dict[str, Any]:
    names = ["users", *[f"users#role#{r}" for r in ROLES], "enrollments",
             *[f"enrollments#status#{s}" for s in ENROLLMENT_STATUSES], "payments", "certificates",
             "certificates#revoked", "invoices", "domains", *[f"milestones#{s}" for s in MILESTONE_STATUSES]]
    c = repo.counters(names)
    leads = repo.counter_item("COUNTER#LEADS", "TOTAL")
    visits = repo.counter_item("COUNTER#VISITS", "TOTAL")
    today = repo.counter_item("COUNTER#VISITS", f"DAY#{clock.today()}")
    return {
        "users": {"total": _n(c, "users"), "byRole": {r: _n(c, f"users#role#{r}") for r in ROLES}},
        "enrollments": {"total": _n(c, "enrollments"),
                        "byStatus": {s: _n(c, f"enrollments#status#{s}") for s in ENROLLMENT_STATUSES}},
        "revenue": {"total": _revenue(c), "currency": "INR"},
        "certificates": {"issued": _n(c, "certificates"), "revoked": _n(c, "certificates#revoked")},
        "invoices": {"issued": _n(c, "invoices")},
        "domains": {"total": _n(c, "domains")},
        "milestones": {s: _n(c, f"milestones#{s}") for s in MILESTONE_STATUSES},
        "leads": {"total": int(leads.get("all", 0)),
                  "byStatus": {s: int(leads.get(f"status:{s}", 0)) for s in LEAD_STATUSES}},
        "visitors": {"total": int(visits.get("visitors", 0)), "today": int(today.get("visitors", 0))},
    }


def domains() -> dict[str, Any]:
    rows = []
    doms = repo.list_domains()
    # per-domain status/revenue counters are read when present (optional; see docs)
    names = []
    for d in doms:
        names += [f"enrollments#domain#{d['id']}#status#{s}" for s in ("active", "completed")]
        names += [f"enrollments#domain#{d['id']}", f"payments#domain#{d['id']}"]
    c = repo.counters(names) if names else {}
    for d in doms:
        did = d["id"]
        total = _n(c, f"enrollments#domain#{did}") or int(d.get("enrollment_count") or 0)
        completed = _n(c, f"enrollments#domain#{did}#status#completed")
        rows.append({"domainId": did, "name": d.get("name"), "slug": d.get("slug"),
                     "isActive": bool(d.get("is_active")), "enrollments": total,
                     "active": _n(c, f"enrollments#domain#{did}#status#active"), "completed": completed,
                     "completionRate": _ratio(completed, total),
                     "revenue": _revenue(c, f"payments#domain#{did}")})
    rows.sort(key=lambda r: (-r["enrollments"], r["name"] or ""))
    return {"domains": rows}


COMPUTE = {"platform": platform, "domains": domains}


def cached(kind: str) -> tuple[dict, int, bool]:
    """``(data, age_seconds, hit)``; recomputes when the shared cache is older than 60 s."""
    ttl = settings().analytics_cache_seconds
    now = clock.now_ts()
    item = repo.cache_get(kind)
    if item:
        age = max(0.0, now - item["computed_ts"] / 1000)
        if age < ttl:
            return item["data"], int(age), True
    data = COMPUTE[kind]()
    repo.cache_put(kind, data, now, ttl)
    return data, 0, False


ENGAGEMENT_COUNTERS = ["users#role#student", "enrollments", "enrollments#status#active",
                       "enrollments#status#completed", "enrollments#status#cancelled", "payments",
                       *[f"milestones#{s}" for s in ("submitted", "reviewed", "rejected")]]
CONVERSION_COUNTERS = ["users#role#student", "enrollments", "enrollments#status#completed"]
VISITS_KEY = ("COUNTER#VISITS", "TOTAL")


def engagement_keys() -> list[tuple[str, str]]:
    """The items ``engagement`` reads first (for ``auth.Reads``)."""
    return repo.counter_keys(ENGAGEMENT_COUNTERS)


def conversion_keys() -> list[tuple[str, str]]:
    """The items ``conversion`` reads (for ``auth.Reads``)."""
    return [*repo.counter_keys(CONVERSION_COUNTERS), VISITS_KEY]


def engagement(read: Mapping | None = None) -> dict[str, Any]:
    """``read``: items read with authentication (``auth.read_with_auth``), the counters among them."""
    c = repo.counters(ENGAGEMENT_COUNTERS, read)
    total = _n(c, "enrollments") - _n(c, "enrollments#status#cancelled")
    completed = _n(c, "enrollments#status#completed")
    submissions = sum(_n(c, f"milestones#{s}") for s in ("submitted", "reviewed", "rejected"))
    avg_days, sample = average_completion_days()
    return {"tiles": [
        {"key": "totalStudents", "label": "Total students", "value": _n(c, "users#role#student")},
        {"key": "activeEnrollments", "label": "Active enrollments", "value": _n(c, "enrollments#status#active")},
        {"key": "milestoneSubmissions", "label": "Milestone submissions", "value": submissions},
        {"key": "completionRate", "label": "Completion rate", "value": _ratio(completed, total), "unit": "ratio"},
        {"key": "averageCompletionTime", "label": "Average completion time",
         "value": avg_days, "unit": "days", "sample": sample},
        {"key": "revenue", "label": "Revenue", "value": _revenue(c), "unit": "INR"},
    ]}


def conversion(read: Mapping | None = None) -> dict[str, Any]:
    """``read``: items read with authentication (``auth.read_with_auth``), the counters among them."""
    c = repo.counters(CONVERSION_COUNTERS, read)
    visitors = int(repo.counter_item(*VISITS_KEY, read=read).get("visitors", 0))
    signups = _n(c, "users#role#student")
    enrollments = _n(c, "enrollments")
    completions = _n(c, "enrollments#status#completed")
    steps = [("visitors", visitors), ("signups", signups), ("enrollments", enrollments),
             ("completions", completions)]
    funnel = []
    for i, (k, v) in enumerate(steps):
        funnel.append({"stage": k, "count": v,
                       "rateFromPrevious": None if i == 0 else _ratio(v, steps[i - 1][1]),
                       "rateFromTop": None if i == 0 else _ratio(v, visitors)})
    return {"visitors": visitors, "signups": signups, "enrollments": enrollments, "completions": completions,
            "funnel": funnel}


def average_completion_days(sample_size: int = 200) -> tuple[float, int]:
    """Mean days from activation (or creation) to completion over the most recent completed
    enrollments (one bounded query; no counter holds durations)."""
    items = repo.recent_completed_enrollments(sample_size)
    days = []
    for e in items:
        start, end = e.get("activated_at") or e.get("paid_at") or e.get("created_at"), e.get("completed_at")
        if not start or not end:
            continue
        try:
            days.append((clock.parse_iso(end) - clock.parse_iso(start)).total_seconds() / 86400)
        except ValueError:
            continue
    return (round(sum(days) / len(days), 1) if days else 0.0), len(days)
