"""Job listings, their search index and saved jobs.

Items:
* job: ``pk="JOB#<id>"``, ``sk="JOB"`` where ``id`` = first 24 hex of sha256(url) (de-duplication by URL);
  ``gsi1pk="JOBS"``, ``gsi1sk="<posted_at>#<id>"``; ``ttl`` = retention; ``index_keys`` lists its index items.
* search index: ``pk="JOBTOK#<word>"`` (title/company words) and ``pk="JOBLOC#<word>"`` (location words),
  ``sk="<posted_at>#<id>"``, same TTL.
* autocomplete: ``pk="JOBSUG#<first 2 letters>"``, ``sk="<word>|<title lower>"`` → ``title``.
* counters: ``pk="COUNTER#JOBS"``, ``sk="TOTAL"`` (``all``, ``source:<name>``).
* saved job: ``pk="SAVEDJOBS#<user_id>"``, ``sk="<job_id>"`` with a snapshot of the listing.
"""
from __future__ import annotations

from typing import Iterable

from lambdakit import clock
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed

from ..settings import settings


def table() -> Table:
    return Table(settings().table_name)


def job_key(job_id: str) -> tuple[str, str]:
    return f"JOB#{job_id}", "JOB"


def source_counter(source: str) -> str:
    # '.' would be read as a document path by the update builder
    return "source:" + source.replace(".", "_")


def get_job(job_id: str) -> dict | None:
    return table().get(*job_key(job_id))


def get_jobs(job_ids: Iterable[str]) -> list[dict]:
    return table().batch_get([job_key(j) for j in job_ids])


def upsert_job(job: dict, index_items: list[dict]) -> bool:
    """Insert a new job (True) or refresh an existing one with the same URL (False)."""
    t = table()
    item = {"pk": f"JOB#{job['id']}", "sk": "JOB", "type": "job", **job,
            "gsi1pk": "JOBS", "gsi1sk": f"{job['posted_at']}#{job['id']}",
            "index_keys": [[i["pk"], i["sk"]] for i in index_items]}
    try:
        t.transact([{"put": item, "condition": "attribute_not_exists(pk)"},
                    {"update": ("COUNTER#JOBS", "TOTAL"), "add": {"all": 1, source_counter(job["source"]): 1}}])
        created = True
    except ConditionFailed:
        # Already known: refresh its expiry and text, keep the first-seen data
        refresh = {"ttl": job["ttl"], "fetched_at": job["fetched_at"]}
        if job.get("description"):
            refresh["description"] = job["description"]
        t.update(*job_key(job["id"]), set=refresh)
        created = False
    if created:
        t.batch_write(puts=index_items)
    return created


def delete_job(job_id: str) -> dict | None:
    t = table()
    try:
        old = t.delete(*job_key(job_id), condition="attribute_exists(pk)", return_old=True)
    except ConditionFailed:
        return None
    if old:
        t.increment("COUNTER#JOBS", "TOTAL", {"all": -1, source_counter(old.get("source", "unknown")): -1})
        keys = [tuple(k) for k in old.get("index_keys") or []]
        if keys:
            t.batch_write(deletes=keys)
    return old


def newest_jobs(offset: int, limit: int) -> list[dict]:
    from ..admin_common import repository as listing

    return listing.page_items("JOBS", index="gsi1", offset=offset, limit=limit)[0]


def oldest_jobs(limit: int) -> list[dict]:
    items, _ = table().query("JOBS", index="gsi1", limit=limit, forward=True)
    return items


def ids_for(prefix: str, word: str, limit: int, since: str | None = None) -> list[str]:
    items, _ = table().query(f"{prefix}#{word}", limit=limit, forward=False, sk_gte=since or None)
    return [i["job_id"] for i in items]


def suggestions(q: str, limit: int) -> list[str]:
    items, _ = table().query(f"JOBSUG#{q[:2]}", sk_prefix=q, limit=limit * 3)
    out: list[str] = []
    for i in items:
        if i["title"] not in out:
            out.append(i["title"])
        if len(out) >= limit:
            break
    return out


def counters() -> dict:
    return table().get("COUNTER#JOBS", "TOTAL") or {}


# ---------------------------------------------------------------- saved jobs
def save_for_user(user_id: str, snapshot: dict) -> bool:
    try:
        table().put({"pk": f"SAVEDJOBS#{user_id}", "sk": snapshot["jobId"], **snapshot, "saved_at": clock.now_iso()},
                    condition="attribute_not_exists(pk)")
    except ConditionFailed:
        return False
    return True


def unsave_for_user(user_id: str, job_id: str) -> bool:
    try:
        table().delete(f"SAVEDJOBS#{user_id}", job_id, condition="attribute_exists(pk)")
    except ConditionFailed:
        return False
    return True


def saved_for_user(user_id: str, max_items: int) -> list[dict]:
    return table().query_all(f"SAVEDJOBS#{user_id}", max_items=max_items)

