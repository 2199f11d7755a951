"""Importing contacts from CSV: the in-request upload (``import_file``, at most
``import_max_sync_rows`` rows) and the asynchronous job (``create_import_job`` hands out a presigned
upload; the import worker runs ``run_import_job`` from the job's last committed row, chunk by chunk,
continuing itself on the queue). The rules of a row and of a chunk's writes are ``importer``; an
existing contact is merged through ``records.apply_change`` when ``update_existing``."""
from __future__ import annotations

from typing import Any, Callable

from lambdakit import clock, ids
from lambdakit.errors import ApiError, FileStoreUnavailable, NotFound, ValidationFailed
from lambdakit.http import parse_model

from ..common.emails import InvalidEmail, normalise_email
from ..settings import settings
from . import importer, jobs
from . import repository as repo
from .importer import ImportOptions, merge_fields, parse_bool, parse_form_tags
from .records import apply_change, retrying

# Cold start: the import worker runs this module without the route's body model (``models``: every
# request and documentation model of the contact routes); ``create_import_job`` imports it.


def _merge_existing(a: str, cid: str, rec: dict, opts) -> bool:
    changed = {"v": False}

    def attempt():
        old = repo.get(a, cid, consistent=True)
        if old is None:
            return
        new = merge_fields(old, rec, opts)
        if new is None:
            return
        new.update(updated_at=clock.now_iso(), version=int(old["version"]) + 1)
        apply_change(a, old, new)
        changed["v"] = True

    retrying(attempt)
    return changed["v"]


def _import_options(a: str, list_id: str | None, tags, update_existing) -> "Any":
    list_id = (list_id or "").strip() or None
    if list_id and repo.get_list(a, list_id) is None:
        raise ValidationFailed("Unknown list", fields={"list_id": "Unknown list id"})
    tag_list = tags if isinstance(tags, list) else parse_form_tags(tags)
    upd = update_existing if isinstance(update_existing, bool) else parse_bool(update_existing, "update_existing")
    return ImportOptions(list_id=list_id, tags=tag_list, update_existing=upd)


def import_file(a: str, form) -> dict:
    """In-request import of a multipart upload (``file``, ``list_id``, ``tags``, ``update_existing``,
    ``dry_run``). The result shows the column mapping (``platforms``); ``dry_run`` is the first pass:
    every row is validated and reported, nothing is written."""
    f = form.files.get("file")
    if f is None:
        raise ValidationFailed("A CSV file is required", fields={"file": "Required"})
    opts = _import_options(a, form.fields.get("list_id"), form.fields.get("tags"), form.fields.get("update_existing"))
    dry_run = parse_bool(form.fields.get("dry_run"), "dry_run")
    text = importer.decode(f.data)
    limit = settings().import_max_sync_rows
    mapping, it = importer.rows(text)
    batch: list = []
    total: dict[str, Any] = {"imported": 0, "updated": 0, "skipped": 0, "errors": []}
    seen: set[str] = set()
    n = 0
    chunks = []
    for line, row in it:
        n += 1
        if n > limit:
            raise ApiError(f"More than {limit} rows: use POST /contacts/imports (asynchronous job)",
                           code="PAYLOAD_TOO_LARGE", status=413,
                           details={"max_rows": limit, "job_route": "POST /contacts/imports"})
        batch.append((line, row))
        if len(batch) == importer.CHUNK:
            chunks.append(batch)
            batch = []
    if batch:
        chunks.append(batch)
    if dry_run:
        return {**importer.check_rows([row for ch in chunks for row in ch], opts), "dry_run": True,
                "mapping": mapping.public()}
    for ch in chunks:
        r = importer.import_chunk(a, ch, opts, seen, _merge_existing)
        total["imported"] += r.imported
        total["updated"] += r.updated
        total["skipped"] += r.skipped
        total["errors"].extend(r.errors)
    return {**total, "dry_run": False, "mapping": mapping.public()}


def create_import_job(a: str, body: dict) -> dict:
    from .models import ImportJobIn

    req = parse_model(ImportJobIn, body)
    opts = _import_options(a, req.list_id, req.tags, req.update_existing)
    job_id = ids.sortable_id().lower()
    s = settings()
    now = clock.now_iso()
    job = {"job_id": job_id, "account_id": a, "status": "awaiting_upload", "list_id": opts.list_id,
           "tags": opts.tags, "update_existing": opts.update_existing, "processed": 0, "imported": 0,
           "updated": 0, "skipped": 0, "errors": [], "created_at": now, "ttl": int(clock.now_ts()) + 30 * 86400,
           "upload_deadline": int(clock.now_ts()) + s.presign_ttl_seconds + UPLOAD_GRACE}
    # the upload form first (issue 23 rule 4): an S3/presign failure answers 503 FILE_STORE_UNAVAILABLE
    # before any job exists, so no job waits for an upload that cannot come
    up = jobs.presigned_upload(jobs.upload_key(a, job_id), s.import_job_max_bytes, s.presign_ttl_seconds)
    jobs.put_job(a, job)
    return {**job_public(job), "upload": {"method": "POST", "url": up["url"], "fields": up["fields"],
                                          "max_bytes": s.import_job_max_bytes,
                                          "expires_in": s.presign_ttl_seconds}}


#: time after the upload form's expiry for the upload's S3 event to reach the worker; a job still
#: awaiting its upload after that is failed (no upload can come: the form has expired)
UPLOAD_GRACE = 3600
NO_UPLOAD = "No file was uploaded before the upload form expired; start a new import job"


def _no_upload(job: dict) -> bool:
    return job.get("status") == "awaiting_upload" and bool(job.get("upload_deadline")) \
        and clock.now_ts() > int(job["upload_deadline"])


def job_public(job: dict) -> dict:
    total = job.get("total")
    done = int(job.get("processed", 0))
    if _no_upload(job):  # final: the worker refuses a job past its deadline
        job = {**job, "status": "failed", "failure": NO_UPLOAD}
    return {"job_id": job["job_id"], "status": job["status"], "processed": done, "total": total,
            "progress": round(100.0 * done / total, 1) if total else (100.0 if job["status"] == "completed" else 0.0),
            "imported": int(job.get("imported", 0)), "updated": int(job.get("updated", 0)),
            "skipped": int(job.get("skipped", 0)), "errors": job.get("errors") or [],
            "list_id": job.get("list_id"), "tags": job.get("tags") or [],
            "update_existing": bool(job.get("update_existing")), "created_at": job.get("created_at"),
            "started_at": job.get("started_at"), "finished_at": job.get("finished_at"),
            "failure": job.get("failure"), "last_error": job.get("last_error"),
            "read_failures": int(job.get("read_failures") or 0), "mapping": job.get("mapping")}


def get_import_job(a: str, job_id: str) -> dict:
    job = jobs.get_job(a, job_id, consistent=True)
    if job is None:
        raise NotFound("Import job not found")
    return job_public(job)


#: reads of an upload that may fail (S3 unavailable) before the job fails with the reason; the
#: import queue's maxReceiveCount (3, functions/campaigns/template.yaml) is the same budget
READ_ATTEMPTS = 3


def _fail(a: str, job_id: str, reason: str) -> str:
    jobs.start_job(a, job_id, clock.now_iso(), 0)
    jobs.finish(a, job_id, "failed", clock.now_iso(), reason)
    return "completed"


def run_import_job(a: str, job_id: str, bucket: str, key: str, *, time_left_ms: Callable[[], int],
                   last_attempt: bool = False) -> str:
    """Process an uploaded file from the job's last committed row. Returns ``completed``,
    ``continue`` (a continuation was queued) or ``skipped`` (nothing to do).

    S3 (issue 23 rule 4): an upload that is gone or denied fails the job with that reason; a
    transient S3 failure is counted on the job (``read_failures``, ``last_error``, visible in
    ``GET /contacts/imports/{job_id}``) and raised (``FileStoreUnavailable``) for the queue to
    deliver the message again; at the ``READ_ATTEMPTS``-th failure (or the queue's
    ``last_attempt``) the job fails with the reason instead of being left waiting."""
    s = settings()
    job = jobs.get_job(a, job_id, consistent=True)
    if job is None or job["status"] not in ("awaiting_upload", "running") or _no_upload(job):
        return "skipped"
    try:
        data = jobs.read_upload(bucket, key, max_bytes=s.import_job_max_bytes)  # too large: UploadUnreadable
    except jobs.UploadUnreadable as exc:
        return _fail(a, job_id, exc.message)
    except FileStoreUnavailable as exc:
        failures = jobs.note_read_failure(a, job_id, exc.message)
        if failures is None:
            return "skipped"
        if failures >= READ_ATTEMPTS or last_attempt:
            return _fail(a, job_id, f"The uploaded file could not be read from storage after {failures} "
                                    f"attempts ({exc.aws_code or 'unavailable'}); upload it again with a new job")
        raise
    try:
        text = importer.decode(data)
        mapping, it = importer.rows(text)
        total = importer.count_rows(text)
    except ApiError as exc:
        return _fail(a, job_id, exc.message)
    job = jobs.start_job(a, job_id, clock.now_iso(), total, mapping.public())
    if job is None:
        return "skipped"
    opts = ImportOptions(list_id=job.get("list_id"), tags=job.get("tags") or [],
                         update_existing=bool(job.get("update_existing")))
    processed = int(job.get("processed", 0))
    errors_len = len(job.get("errors") or [])
    seen: set[str] = set()
    batch: list = []
    budget = s.import_rows_per_invocation
    done_now = 0
    for idx, (line, row) in enumerate(it):
        if idx < processed:
            # rows before the checkpoint only seed in-file de-duplication
            if "__error__" not in row:
                try:
                    seen.add(normalise_email(row.get("email", "")).lower())
                except InvalidEmail:
                    pass
            continue
        batch.append((line, row))
        if len(batch) == importer.CHUNK:
            if not _commit_chunk(a, job_id, batch, opts, seen, processed, errors_len):
                return "skipped"
            processed += len(batch)
            done_now += len(batch)
            batch = []
            if done_now >= budget or time_left_ms() < 60_000:
                jobs.enqueue({"type": "import_continue", "account_id": a, "job_id": job_id, "bucket": bucket,
                              "key": key})
                return "continue"
    committed: bool | str = True
    if batch:  # the last chunk's commit completes the job too (one write fewer)
        committed = _commit_chunk(a, job_id, batch, opts, seen, processed, errors_len, last=True)
        if not committed:
            return "skipped"
    if committed != "completed":
        jobs.finish(a, job_id, "completed", clock.now_iso())
    jobs.delete_upload(bucket, key)
    return "completed"


def _commit_chunk(a, job_id, batch, opts, seen, processed, errors_len, *, last: bool = False) -> bool | str:
    r = importer.import_chunk(a, batch, opts, seen, _merge_existing, scope=f"{job_id}#{processed}")
    return jobs.advance(a, job_id, processed, {"processed": len(batch), "imported": r.imported,
                                               "updated": r.updated, "skipped": r.skipped},
                        r.errors, errors_len, complete_at=clock.now_iso() if last else None)
