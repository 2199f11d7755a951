"""Weekly job digest (``job-alerts``, Monday 09:00 UTC).

First refreshes the configured sources (the weekly fetch), then for every student with an
active enrollment queues one ``job_alert`` with up to 10 jobs of the last 7 days whose
title/company words match the enrollment's domain name. Dedupe key
``job-alert:<user>:<ISO year-week>``: a second run the same day (or week) sends nothing.
"""
from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable

from lambdakit import clock

from .. import people
from ..mail.outbox import enqueue_ex
from . import parse, service
from . import repository as repo

logger = logging.getLogger("internships.jobs")

GENERIC = frozenset({"development", "developer", "engineering", "intern", "internship", "and", "science"})


def jobs_for_domain(domain_name: str, since: str, limit: int = 10) -> list[dict]:
    words = [w for w in parse.tokens(domain_name) if w not in GENERIC] or parse.tokens(domain_name)
    ids: list[str] = []
    for w in words[:5]:
        for jid in repo.ids_for("JOBTOK", w, 50, since=since):
            if jid not in ids:
                ids.append(jid)
    jobs = sorted(repo.get_jobs(ids[:100]), key=lambda j: j.get("posted_at", ""), reverse=True)
    return jobs[:limit]


def weekly_alerts() -> dict:
    return weekly_alerts_from({})[0]


def _always() -> bool:
    return True


def weekly_alerts_from(state: dict, more: Callable[[], bool] = _always) -> tuple[dict, dict | None]:
    """Resumable (``internships.tasks``): ``state`` ``{}`` (from the start), ``{"fetch": i}`` (the
    sources from index i) or ``{"after": cursor}`` (the digests of the enrollments after it).
    Returns ``(counts, next state or None when done)``."""
    if "after" not in state:
        r, nxt = service.fetch_from(int(state.get("fetch") or 0), more=more)
        fetched = {"fetched": {k: r[k] for k in ("added", "updated", "sources")}}
        if nxt is not None:
            return {"sent": 0, "skipped": 0, **fetched}, {"fetch": nxt}
        if not more():
            return {"sent": 0, "skipped": 0, **fetched}, {"after": ""}
        counts, after = _digests("", more)
        return {**counts, **fetched}, (None if after is None else {"after": after})
    counts, after = _digests(str(state["after"]), more)
    return counts, (None if after is None else {"after": after})


def _digests(after: str, more: Callable[[], bool]) -> tuple[dict, str | None]:
    now = clock.now()
    since = clock.iso(now - dt.timedelta(days=7))
    year, week, _ = now.isocalendar()
    sent = skipped = 0
    seen: set[str] = set()
    cache: dict[str, list[dict]] = {}
    last = after
    for e in people.active_enrollments_after(after):
        if not more():
            return {"sent": sent, "skipped": skipped}, last
        last = str(e.get("gsi3sk") or "")
        uid = e.get("user_id")
        if not uid or uid in seen or not e.get("student_email"):
            continue
        seen.add(uid)
        domain = e.get("domain_name") or ""
        if domain not in cache:
            cache[domain] = jobs_for_domain(domain, since)
        jobs = cache[domain]
        if not jobs:
            continue
        data = {"name": e.get("student_name"), "domainName": domain, "count": len(jobs),
                "jobs": [{"title": j["title"], "company": j.get("company", ""), "url": j["url"]} for j in jobs]}
        try:
            created = enqueue_ex("job_alert", e["student_email"], data,
                                 dedupe_key=f"job-alert:{uid}:{year}-W{week:02d}", user_id=uid)[1]
        except Exception:  # noqa: BLE001
            logger.warning("could not queue a job alert")
            continue
        sent += int(created)
        skipped += int(not created)
    return {"sent": sent, "skipped": skipped}, None
