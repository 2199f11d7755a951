"""Jobs: aggregation from configured sources, search, autocomplete, saved jobs, admin operations."""
from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import quote_plus

from lambdakit import clock
from lambdakit.errors import BadRequest, NotFound
from lambdakit.pagination import page_meta, page_request
from lambdakit.security import sha256_hex

from ..settings import settings
from . import parse
from . import repository as repo
from .fetch import FetchError, fetch

logger = logging.getLogger("internships.jobs")

SEARCH_FANOUT = 200  # newest index entries read per search word
MAX_SAVED = 500


def job_id_for(url: str) -> str:
    return sha256_hex(url.strip())[:24]


def _split(value: str) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


# ---------------------------------------------------------------- ingestion
def ingest(records: list[dict]) -> dict:
    s = settings()
    now = clock.now_iso()
    ttl = int(clock.now_ts()) + s.jobs_retention_days * 86400
    added = updated = 0
    seen: set[str] = set()
    for r in records:
        jid = job_id_for(r["url"])
        if jid in seen:
            continue
        seen.add(jid)
        posted = r.get("posted_at") or now
        if posted > now:
            posted = now
        job = {"id": jid, "title": r["title"], "company": r.get("company") or "", "location": r.get("location") or "",
               "url": r["url"], "description": (r.get("description") or "")[:2000], "source": r["source"],
               "posted_at": posted, "fetched_at": now, "created_at": now, "ttl": ttl}
        sk = f"{posted}#{jid}"
        index = [{"pk": f"JOBTOK#{w}", "sk": sk, "job_id": jid, "ttl": ttl}
                 for w in parse.tokens(f"{job['title']} {job['company']}")[:20]]
        index += [{"pk": f"JOBLOC#{w}", "sk": sk, "job_id": jid, "ttl": ttl} for w in parse.tokens(job["location"])[:8]]
        title_l = job["title"].lower()[:150]
        index += [{"pk": f"JOBSUG#{w[:2]}", "sk": f"{w}|{title_l}", "title": job["title"][:150], "ttl": ttl}
                  for w in parse.tokens(job["title"])[:8]]
        if repo.upsert_job(job, index):
            added += 1
        else:
            updated += 1
    return {"added": added, "updated": updated}


def _source_name(url: str) -> str:
    from urllib.parse import urlsplit

    return (urlsplit(url).hostname or "feed")[:60]


def _fetch_feed(url: str) -> dict:
    s = settings()
    try:
        data = fetch(url, accept="application/rss+xml, application/atom+xml, application/xml, text/xml")
        records = parse.from_feed(data, f"rss:{_source_name(url)}", s.jobs_max_per_source)
    except FetchError as exc:
        return {"added": 0, "updated": 0, "sources": 0, "errors": [{"source": _source_name(url), "error": str(exc)}]}
    return {**ingest(records), "sources": 1, "errors": []}


def fetch_sources(rss_only: bool = False) -> list[tuple[str, str]]:
    """The configured sources in a fixed order (a resumed fetch counts on it): feeds, then searches."""
    s = settings()
    out = [("rss", u) for u in _split(s.jobs_rss_feeds)]
    if not rss_only and s.jobs_search_url:
        out += [("search", q) for q in _split(s.jobs_default_queries)]
    return out


def _always() -> bool:
    return True


def fetch_from(start: int, rss_only: bool = False, more: Callable[[], bool] = _always) -> tuple[dict, int | None]:
    """Fetch the sources from index ``start`` while ``more()``: ``(counts, next index or None when
    done)``. Each source is an upsert of its listings (idempotent: a redone source updates)."""
    total: dict[str, Any] = {"added": 0, "updated": 0, "sources": 0, "errors": []}
    sources = fetch_sources(rss_only)
    i = start
    while i < len(sources):
        if not more():
            return total, i
        kind, value = sources[i]
        r = _fetch_feed(value) if kind == "rss" else fetch_search(value)
        for k in ("added", "updated", "sources"):
            total[k] += r[k]
        total["errors"] += r["errors"]
        i += 1
    return total, None


def fetch_rss() -> dict:
    return fetch_from(0, rss_only=True)[0]


def fetch_all_step(state: dict, more: Callable[[], bool]) -> tuple[dict, dict | None]:
    """``fetch-all`` as a resumable step (``internships.tasks``): state ``{"next": source index}``."""
    r, nxt = fetch_from(int(state.get("next") or 0), more=more)
    return r, (None if nxt is None else {"next": nxt})


def fetch_rss_step(state: dict, more: Callable[[], bool]) -> tuple[dict, dict | None]:
    r, nxt = fetch_from(int(state.get("next") or 0), rss_only=True, more=more)
    return r, (None if nxt is None else {"next": nxt})


#: The admin fetches that run as tasks when they outlast a request (the worker resumes them by kind).
TASK_STEPS = {"jobs-fetch-all": fetch_all_step, "jobs-fetch-rss": fetch_rss_step}


def fetch_search(query: str, location: str = "") -> dict:
    s = settings()
    if not s.jobs_search_url:
        return {"added": 0, "updated": 0, "sources": 0, "errors": [{"source": "search", "error": "not configured"}]}
    url = s.jobs_search_url.replace("{query}", quote_plus(query)).replace("{location}", quote_plus(location))
    try:
        data = fetch(url, accept="application/json")
    except FetchError as exc:
        return {"added": 0, "updated": 0, "sources": 0, "errors": [{"source": "search", "error": str(exc)}]}
    r = ingest(parse.from_search_api(data, f"api:{_source_name(url)}", s.jobs_max_per_source))
    return {**r, "sources": 1, "errors": []}


def fetch_all() -> dict:
    return fetch_from(0)[0]


def refresh(query: str | None) -> dict:
    if not isinstance(query, str) or not query.strip():
        raise BadRequest("query is required")
    if len(query) > 100:
        raise BadRequest("query must be at most 100 characters")
    if not settings().jobs_search_url:
        raise BadRequest("No job-search API is configured")
    return fetch_search(query.strip())


# ---------------------------------------------------------------- reading
def present(j: dict) -> dict:
    return {"id": j["id"], "title": j["title"], "company": j.get("company", ""), "location": j.get("location", ""),
            "url": j["url"], "description": j.get("description", ""), "source": j.get("source"),
            "postedAt": j.get("posted_at"), "fetchedAt": j.get("fetched_at")}


def _ids_matching(prefix: str, text: str) -> set[str] | None:
    words = parse.tokens(text)
    if not words:
        return None
    result: set[str] | None = None
    for w in words[:5]:
        ids = set(repo.ids_for(prefix, w, SEARCH_FANOUT))
        result = ids if result is None else result & ids
        if not result:
            return set()
    return result


def search(keyword: str | None, location: str | None, page: str | None, limit: str | None) -> dict:
    keyword = (keyword or "").strip()
    location = (location or "").strip()
    if not keyword and not location:
        raise BadRequest("keyword or location is required")
    if len(keyword) > 100 or len(location) > 100:
        raise BadRequest("keyword and location must be at most 100 characters")
    req = page_request(page, limit, default_limit=20, max_limit=50)
    ids: set[str] | None = None
    for prefix, text in (("JOBTOK", keyword), ("JOBLOC", location)):
        if not text:
            continue
        found = _ids_matching(prefix, text)
        found = set() if found is None else found
        ids = found if ids is None else ids & found
    ordered = sorted(ids or [], reverse=True)
    jobs = sorted(repo.get_jobs(ordered[:100]), key=lambda j: (j.get("posted_at", ""), j["id"]), reverse=True)
    page_items = jobs[req.offset:req.offset + req.limit]
    return {"success": True, "jobs": [present(j) for j in page_items], **page_meta(req, len(jobs))}


def suggest(q: str | None) -> dict:
    q = " ".join((q or "").lower().split())
    words = parse.tokens(q)
    if len(q) < 2 or not words:
        return {"success": True, "suggestions": []}
    last = q.split(" ")[-1] if q.split(" ")[-1] else words[-1]
    if len(last) < 2:
        return {"success": True, "suggestions": []}
    titles = repo.suggestions(last, 30)
    if len(words) > 1:
        titles = [t for t in titles if all(w in t.lower() for w in words[:-1])]
    return {"success": True, "suggestions": titles[:10]}


# ---------------------------------------------------------------- saved jobs
def _job_id(value) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        raise BadRequest("jobId is required")
    return value.strip()


def save(user_id: str, job_id) -> dict:
    jid = _job_id(job_id)
    job = repo.get_job(jid)
    if not job:
        raise NotFound("Job not found")
    snap = {"jobId": jid, "title": job["title"], "company": job.get("company", ""),
            "location": job.get("location", ""), "url": job["url"], "postedAt": job.get("posted_at")}
    created = repo.save_for_user(user_id, snap)
    return {"success": True, "saved": True, "alreadySaved": not created, "jobId": jid}


def unsave(user_id: str, job_id) -> dict:
    jid = _job_id(job_id)
    removed = repo.unsave_for_user(user_id, jid)
    if not removed:
        raise NotFound("Saved job not found")
    return {"success": True, "removed": True, "jobId": jid}


def saved(user_id: str) -> dict:
    items = sorted(repo.saved_for_user(user_id, MAX_SAVED), key=lambda i: i.get("saved_at", ""), reverse=True)
    return {"success": True, "jobs": [{"jobId": i["jobId"], "title": i.get("title"), "company": i.get("company"),
                                       "location": i.get("location"), "url": i.get("url"),
                                       "postedAt": i.get("postedAt"), "savedAt": i.get("saved_at")} for i in items],
            "total": len(items)}


# ---------------------------------------------------------------- admin
def admin_list(page: str | None, limit: str | None) -> dict:
    req = page_request(page, limit)
    c = repo.counters()
    total = max(0, int(c.get("all", 0)))
    items = repo.newest_jobs(req.offset, req.limit)
    sources = {k.split(":", 1)[1]: int(v) for k, v in c.items() if k.startswith("source:") and int(v) > 0}
    return {"success": True, "jobs": [present(j) for j in items], "sources": sources,
            **page_meta(req, total)}


def admin_delete(job_id: str | None, older_than_days: int | None, delete_all: bool) -> dict:
    if job_id:
        old = repo.delete_job(_job_id(job_id))
        if not old:
            raise NotFound("Job not found")
        return {"success": True, "deleted": 1, "more": False}
    if older_than_days is None and not delete_all:
        raise BadRequest("Give jobId, olderThanDays or all=true")
    cutoff = clock.iso(clock.now() - dt.timedelta(days=older_than_days)) if older_than_days is not None else None
    deleted = 0
    batch = repo.oldest_jobs(200)
    for j in batch:
        if cutoff and j.get("posted_at", "") >= cutoff:
            return {"success": True, "deleted": deleted, "more": False}
        if repo.delete_job(j["id"]):
            deleted += 1
    return {"success": True, "deleted": deleted, "more": len(batch) == 200}
