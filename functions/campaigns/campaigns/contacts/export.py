"""Exporting contacts (CSV or JSON; all of them, a list's, or one status): in the response when the
counters say it holds at most ``export_inline_max_rows`` rows (a presigned S3 download when the body
is too big for a Lambda response), else as a job the import worker runs (``run_export_job``).
Inline and job exports render the same bytes (``_render``). The request's DynamoDB cost is
bounded by that setting, whatever the data size."""
from __future__ import annotations

import itertools
import json
import logging
from typing import IO, Iterable, NamedTuple

from lambdakit import clock, ids
from lambdakit.errors import NotFound, ValidationFailed

from ..settings import settings
from . import jobs
from . import repository as repo
from .fields import STATUSES
from .records import enrich, public

logger = logging.getLogger("campaigns.contacts")
EXPORT_FIELDS = ("id", "email", "first_name", "last_name", "phone", "tags", "lists", "status", "custom_fields",
                 "created_at", "updated_at")
#: Lifetime of the presigned download URL of an asynchronous export (the job may take minutes).
EXPORT_JOB_URL_TTL_SECONDS = 3600
#: Worker runs of one export job before it is marked failed (SQS redelivers a crashed run).
EXPORT_MAX_ATTEMPTS = 3
_PAGE = 500


class _Spec(NamedTuple):
    fmt: str
    cols: list[str]
    list_id: str | None
    status: str | None

    @property
    def ctype(self) -> str:
        return "application/json" if self.fmt == "json" else "text/csv; charset=utf-8"


def _export_spec(fmt: str | None, list_id: str | None, fields: str | None, status: str | None) -> _Spec:
    fmt = (fmt or "csv").strip().lower()
    if fmt not in ("csv", "json"):
        raise ValidationFailed("format must be csv or json", fields={"format": "One of: csv, json"})
    if status is not None and status not in STATUSES:
        raise ValidationFailed("Invalid status", fields={"status": f"One of: {', '.join(STATUSES)}"})
    cols = [f.strip() for f in (fields or "").split(",") if f.strip()] or list(EXPORT_FIELDS)
    bad = [f for f in cols if f not in EXPORT_FIELDS]
    if bad:
        raise ValidationFailed("Unknown field", fields={"fields": f"Unknown: {', '.join(bad)}; allowed: "
                                                                 f"{', '.join(EXPORT_FIELDS)}"})
    return _Spec(fmt, list(dict.fromkeys(cols)), (list_id or "").strip() or None, status)


def _expected_rows(a: str, spec: _Spec) -> int:
    """Rows the export will hold, from the maintained counters (one BatchGetItem)."""
    cnt = repo.counters(a, list_id=spec.list_id)
    if spec.list_id:
        item = cnt.get("list")
        if item is None:
            raise NotFound("List not found")
        return max(0, int(item.get(spec.status or "contact_count", 0)))
    return max(0, int((cnt["contacts"] or {}).get(spec.status or "total", 0)))


def export(a: str, *, fmt: str | None, list_id: str | None, fields: str | None, status: str | None = None) -> dict:
    """Build the export. Returns ``{"inline": (body, content_type, filename), "count": n}``,
    ``{"url": ..., ...}`` when it is too big for a Lambda response, or ``{"job": ...}`` (an
    asynchronous export) when the counters say it holds more than ``export_inline_max_rows``
    rows. The request's DynamoDB cost is bounded by that setting, whatever the data size."""
    import io

    spec = _export_spec(fmt, list_id, fields, status)
    s = settings()
    limit = s.export_inline_max_rows
    expected = _expected_rows(a, spec)
    if expected > limit:
        return {"job": _queue_export(a, spec, expected)}
    contacts = list(itertools.islice(_iter_export(a, spec.list_id, spec.status, page=min(_PAGE, limit + 1)),
                                     limit + 1))
    if len(contacts) > limit:  # the counters lagged behind: never read more than the bound here
        return {"job": _queue_export(a, spec, len(contacts))}
    filename = _export_filename(spec)
    buf = io.BytesIO()
    _render(spec, contacts, buf)
    body = buf.getvalue()
    if len(body) <= s.export_inline_max_bytes:
        return {"inline": (body, spec.ctype, filename), "count": len(contacts)}
    key = f"exports/{a}/{ids.sortable_id().lower()}/{filename}"
    url = jobs.put_export(key, body, spec.ctype, filename, s.presign_ttl_seconds)
    return {"url": url, "format": spec.fmt, "count": len(contacts), "bytes": len(body), "filename": filename,
            "expires_in": s.presign_ttl_seconds}


def _export_filename(spec: _Spec) -> str:
    return f"contacts-{clock.now().strftime('%Y%m%d-%H%M%S')}.{spec.fmt}"


def _queue_export(a: str, spec: _Spec, expected: int) -> dict:
    job_id = ids.sortable_id().lower()
    filename = _export_filename(spec)
    key = f"exports/{a}/{job_id}/{filename}"
    job = {"job_id": job_id, "account_id": a, "kind": "export", "status": "queued", "format": spec.fmt,
           "fields": spec.cols, "list_id": spec.list_id, "status_filter": spec.status, "key": key,
           "filename": filename, "processed": 0, "total": expected, "attempts": 0, "created_at": clock.now_iso(),
           "ttl": int(clock.now_ts()) + 7 * 86400}
    jobs.put_export_job(a, job)
    jobs.enqueue({"type": "export", "account_id": a, "job_id": job_id})
    return {**export_job_public(job), "url": jobs.export_url(key, EXPORT_JOB_URL_TTL_SECONDS),
            "expires_in": EXPORT_JOB_URL_TTL_SECONDS}


def export_job_public(job: dict) -> dict:
    total = job.get("total")
    done = int(job.get("processed", 0))
    return {"job_id": job["job_id"], "status": job["status"], "format": job["format"], "fields": job["fields"],
            "list_id": job.get("list_id"), "status_filter": job.get("status_filter"), "filename": job["filename"],
            "processed": done, "total": total,
            "progress": (100.0 if job["status"] == "completed"
                         else round(min(100.0, 100.0 * done / total), 1) if total else 0.0),
            "created_at": job["created_at"], "started_at": job.get("started_at"),
            "finished_at": job.get("finished_at"), "failure": job.get("failure"),
            "status_url": f"/contacts/exports/{job['job_id']}"}


def get_export_job(a: str, job_id: str) -> dict:
    """Status of an export job of this account; a completed job carries a fresh download URL."""
    job = jobs.get_export_job(a, job_id, consistent=True)
    if job is None:
        raise NotFound("Export job not found")
    out = export_job_public(job)
    if job["status"] == "completed":
        out.update(url=jobs.export_url(job["key"], EXPORT_JOB_URL_TTL_SECONDS),
                   expires_in=EXPORT_JOB_URL_TTL_SECONDS)
    return out


def run_export_job(a: str, job_id: str) -> str:
    """Worker side: stream the contacts (paged key queries) into the file and upload it.
    Returns ``completed``, ``failed`` or ``skipped``; raises on an error that SQS should retry."""
    import tempfile

    job = jobs.start_export_job(a, job_id, clock.now_iso())
    if job is None:
        return "skipped"
    spec = _Spec(job["format"], list(job["fields"]), job.get("list_id"), job.get("status_filter"))
    try:
        def rows():
            n = 0
            for c in _iter_export(a, spec.list_id, spec.status):
                yield c
                n += 1
                if n % _PAGE == 0:
                    jobs.export_progress(a, job_id, n)

        with tempfile.TemporaryFile() as out:
            n = _render(spec, rows(), out)
            out.seek(0)
            jobs.upload_export(job["key"], out, spec.ctype, job["filename"])
    except Exception:
        if int(job.get("attempts", 0)) < EXPORT_MAX_ATTEMPTS:
            raise
        logger.exception("export job failed", extra={"job_id": job_id})
        jobs.finish_export_job(a, job_id, "failed", clock.now_iso(), error="Export failed")
        return "failed"
    jobs.finish_export_job(a, job_id, "completed", clock.now_iso(), processed=n)
    return "completed"


def _render(spec: _Spec, contacts: Iterable[dict], out: IO[bytes]) -> int:
    """Write the export of ``contacts`` to ``out`` (CSV with every cell, header included, neutralised
    by ``lambdakit.csvsafe``, or a JSON
    array); returns the number of rows. Inline and asynchronous exports share it, so both
    give the same bytes for the same contacts."""
    import io
    import tempfile

    from lambdakit import csvsafe

    n = 0
    if spec.fmt == "json":
        out.write(b"[")
        for c in contacts:
            p = public(c)
            out.write((", " if n else "").encode() + json.dumps({k: p[k] for k in spec.cols},
                                                                ensure_ascii=False).encode("utf-8"))
            n += 1
        out.write(b"]")
        return n
    with tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024, mode="w+t", encoding="utf-8") as spool:
        # the header names every custom field, so the records are spooled while their keys are collected
        custom: set[str] = set()
        for c in contacts:
            p = public(c)
            if "custom_fields" in spec.cols:
                custom.update(p["custom_fields"])
            spool.write(json.dumps(p, ensure_ascii=False) + "\n")
        spool.seek(0)
        header = [c for c in spec.cols if c != "custom_fields"] + sorted(custom - set(EXPORT_FIELDS))
        text = io.TextIOWrapper(out, encoding="utf-8", newline="")  # type: ignore[arg-type]
        w = csvsafe.writer(text, lineterminator="\r\n")  # every cell neutralised, the header included
        w.writerow(header)
        for line in spool:
            p = json.loads(line)
            row = []
            for col in header:
                if col in ("tags", "lists"):
                    v = ";".join(p[col])
                elif col in EXPORT_FIELDS:
                    v = p[col]
                else:
                    v = p["custom_fields"].get(col, "")
                row.append(v)
            w.writerow(row)
            n += 1
        text.flush()
        text.detach()
    return n


def _iter_export(a: str, list_id: str | None, status: str | None, *, page: int = _PAGE):
    cursor = None
    source = "list" if list_id else ("status" if status else "all")
    while True:
        items, cursor = repo.query_source(source, a, value=list_id, status=status, limit=page, cursor=cursor)
        contacts = enrich(a, items) if source == "list" else items
        for c in contacts:
            if c is not None and (status is None or c.get("status") == status):
                yield c
        if not cursor:
            return
