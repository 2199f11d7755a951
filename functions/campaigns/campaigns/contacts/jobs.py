"""Data access for import jobs, import/export files and the import queue.

Job item: ``pk=ACCT#<a>``, ``sk=IMPORT#<job_id>`` with status ``awaiting_upload → running →
completed | failed``, counters (processed, total, imported, updated, skipped) and the first
errors. Uploads go to ``imports/<account>/<job_id>.csv`` in the import bucket.

Export job item: ``pk=ACCT#<a>``, ``sk=EXPORT#<job_id>`` with status ``queued → running →
completed | failed``, ``attempts`` (worker runs started), progress (processed, total) and the
S3 ``key`` in the files bucket the worker writes (``exports/<account>/<job_id>/<file>``).
"""
from __future__ import annotations

import json
import logging
from typing import Any, Callable

from lambdakit import aws, s3
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, Contention, FileStoreError

from ..common import keys
from ..settings import settings

MAX_ERRORS_KEPT = 100
logger = logging.getLogger("campaigns.contacts")


class UploadUnreadable(Exception):
    """The uploaded import file cannot be read and retrying will not help (it is gone, access is
    denied, or it is over the job's size limit): the job fails with this reason."""

    def __init__(self, message: str, aws_code: str = "") -> None:
        super().__init__(message)
        self.message, self.aws_code = message, aws_code


#: Codes of an upload that is not there (without ``s3:ListBucket`` S3 answers a missing key 403).
_MISSING = frozenset({"NoSuchKey", "404", "NotFound", "NoSuchBucket"})


def _t() -> Table:
    return Table(settings().table_name)


def put_job(a: str, job: dict) -> None:
    _t().put_new({"pk": keys.acct(a), "sk": f"IMPORT#{job['job_id']}", **job})


def get_job(a: str, job_id: str, *, consistent: bool = False) -> dict | None:
    return _t().get(keys.acct(a), f"IMPORT#{job_id}", consistent=consistent)


def _unconfirmed() -> Contention:
    """A condition failure the job read back does not explain, twice: 503, the worker retries."""
    return Contention("The import job could not be updated, please retry", reasons=["ConditionUnconfirmed"])


def start_job(a: str, job_id: str, now: str, total: int, mapping: dict | None = None) -> dict | None:
    """awaiting_upload → running (once); a running job is returned as is (resumption), a missing
    or finished one is ``None``. A condition failure is confirmed from the job item (issue 23
    rule 2): a job read back still awaiting its upload is started again."""
    for _try in range(2):
        try:
            return _t().update(keys.acct(a), f"IMPORT#{job_id}", set={"status": "running", "started_at": now},
                               set_if_absent={"total": total, "mapping": mapping}, condition="#s = :waiting", names={"#s": "status"},
                               values={":waiting": "awaiting_upload"})
        except ConditionFailed:
            job = get_job(a, job_id, consistent=True)
            if not job or job.get("status") != "awaiting_upload":
                return job if job and job.get("status") == "running" else None
    raise _unconfirmed()


def advance(a: str, job_id: str, expected_processed: int, delta: dict[str, int | float], errors: list[dict],
            job_errors_len: int, *, complete_at: str | None = None) -> bool | str:
    """Commit one chunk's progress; False when another worker already advanced the job (read
    back: no longer running, or ``processed`` moved by other than this chunk). A job read back
    at ``expected_processed + this chunk`` is this commit, applied with its answer lost.

    ``complete_at`` (the file's last chunk): the same write also completes the job (what
    ``finish(..., "completed", complete_at)`` does, one write fewer), marked with a token so a
    read-back tells this completion from another worker's; returns ``"completed"`` then. A
    running job read back at this chunk's count (advanced, not completed, by another worker) is
    ``True``: the caller completes it with ``finish``, as after a plain advance."""
    keep = errors[: max(0, MAX_ERRORS_KEPT - job_errors_len)]
    done_at = expected_processed + int(delta.get("processed") or 0)
    kw: dict = {}
    token = None
    if complete_at is not None:
        from lambdakit import ids

        token = ids.sortable_id().lower()
        kw = {"set": {"status": "completed", "finished_at": complete_at, "completed_by": token},
              "remove": ["last_error"]}
    for _try in range(2):
        try:
            _t().update(keys.acct(a), f"IMPORT#{job_id}", add=delta, append={"errors": keep} if keep else None,
                        condition="#s = :running AND #p = :p", names={"#s": "status", "#p": "processed"},
                        values={":running": "running", ":p": expected_processed}, return_values="NONE", **kw)
            return "completed" if token else True
        except ConditionFailed:
            job = get_job(a, job_id, consistent=True) or {}
            done = int(job.get("processed") or 0)
            if token and job.get("status") == "completed" and job.get("completed_by") == token:
                return "completed"  # this write, its answer lost
            if job.get("status") != "running":
                return False
            if done == done_at:
                return True
            if done != expected_processed:
                return False
    raise _unconfirmed()


def note_read_failure(a: str, job_id: str, error: str) -> int | None:
    """Count one failed read of the job's upload (``read_failures``) and show it as
    ``last_error``; returns the failures so far, or ``None`` when the job is no longer waiting
    or running. An ADD resent after a lost answer counts one failure twice: the job then gives
    up one attempt earlier, never later."""
    for _try in range(2):
        try:
            job = _t().update(keys.acct(a), f"IMPORT#{job_id}", add={"read_failures": 1}, set={"last_error": error},
                              condition="#s IN (:w, :r)", names={"#s": "status"},
                              values={":w": "awaiting_upload", ":r": "running"})
            return int(job.get("read_failures") or 0)
        except ConditionFailed:  # confirmed from the job: finished (None), else tried again
            cur = get_job(a, job_id, consistent=True)
            if not cur or cur.get("status") not in ("awaiting_upload", "running"):
                return None
    raise _unconfirmed()


def finish(a: str, job_id: str, status: str, now: str, error: str | None = None) -> None:
    """running → ``status``; a job read back as no longer running was finished already."""
    s = {"status": status, "finished_at": now}
    if error:
        s["failure"] = error
    for _try in range(2):
        try:
            _t().update(keys.acct(a), f"IMPORT#{job_id}", set=s, remove=["last_error"] if status == "completed" else None,
                        condition="#s = :running", names={"#s": "status"}, values={":running": "running"},
                        return_values="NONE")
            return
        except ConditionFailed:
            job = get_job(a, job_id, consistent=True)
            if not job or job.get("status") != "running":
                return
    raise _unconfirmed()


# ---------------------------------------------------------------- S3
def upload_key(a: str, job_id: str) -> str:
    return f"imports/{a}/{job_id}.csv"


def presigned_upload(key: str, max_bytes: int, ttl: int) -> dict:
    """The presigned POST form of an import upload (signed locally; S3 failures as ``lambdakit.s3``
    maps them: 503 ``FILE_STORE_UNAVAILABLE`` when transient)."""
    return s3.presign_post(settings().import_bucket, key, fields={"Content-Type": "text/csv"},
                           conditions=[["content-length-range", 1, max_bytes], {"Content-Type": "text/csv"}],
                           expires=ttl)


def _upload(call: Callable[[], Any]) -> Any:
    """An S3 read of the uploaded file: ``UploadUnreadable`` when it is gone or refused (a retry
    will not help), ``FileStoreUnavailable`` (from ``lambdakit.s3``) when S3 is busy or out of reach."""
    try:
        out = call()
    except FileStoreError as exc:
        raise UploadUnreadable("The uploaded file could not be read (access denied)", exc.aws_code) from None
    if out is None:
        raise UploadUnreadable("The uploaded file was not found (it expired or was removed)", "NoSuchKey")
    return out


#: The failure of an upload over the job's size limit.
TOO_LARGE = "File too large"


def read_upload(bucket: str, key: str, *, max_bytes: int) -> bytes:
    """The uploaded file, in one GetObject (issue 21: no HeadObject before it): a file over
    ``max_bytes`` is ``UploadUnreadable(TOO_LARGE)`` from the answer's ``Content-Length``, its
    body left unread. S3 failures as ``_upload`` maps them."""
    try:
        return _upload(lambda: s3.get(bucket, key, max_bytes=max_bytes, missing=_MISSING))
    except s3.ObjectTooLarge:
        raise UploadUnreadable(TOO_LARGE, "EntityTooLarge") from None


def delete_upload(bucket: str, key: str) -> None:
    """Remove a processed upload; a failure is logged only (the bucket's lifecycle rule
    expires ``imports/`` after a day), never a failure of the finished job."""
    s3.delete_quietly(bucket, key)


def put_export(key: str, body: bytes, content_type: str, filename: str, ttl: int) -> str:
    s3.put(settings().files_bucket, key, body, content_type=content_type,
           ContentDisposition=f'attachment; filename="{filename}"')
    return export_url(key, ttl)


def export_url(key: str, ttl: int) -> str:
    """Presigned GET of an export object (no AWS call; valid before the object exists)."""
    return s3.presign_url("get_object", settings().files_bucket, key, ttl)


def upload_export(key: str, fileobj, content_type: str, filename: str) -> None:
    """Stream a file object to the files bucket (managed transfer: multipart above 8 MB).

    boto3's ``upload_fileobj`` called with the shared client: ``lambdakit.aws`` makes botocore
    clients, which lack the method boto3 injects into its S3 clients; the function is the same
    one, so only an export upload imports the boto3 package."""
    from boto3.s3.inject import upload_fileobj

    with s3.guard("upload export", "The export could not be stored"):
        upload_fileobj(aws.client("s3"), fileobj, settings().files_bucket, key, ExtraArgs={
            "ContentType": content_type, "ContentDisposition": f'attachment; filename="{filename}"',
            "ServerSideEncryption": "AES256"})


# ---------------------------------------------------------------- export jobs
def _export_sk(job_id: str) -> str:
    return f"EXPORT#{job_id}"


def put_export_job(a: str, job: dict) -> None:
    _t().put_new({"pk": keys.acct(a), "sk": _export_sk(job["job_id"]), **job})


def get_export_job(a: str, job_id: str, *, consistent: bool = False) -> dict | None:
    return _t().get(keys.acct(a), _export_sk(job_id), consistent=consistent)


def start_export_job(a: str, job_id: str, now: str) -> dict | None:
    """queued|running → running with one more attempt; None when missing or already finished."""
    try:
        return _t().update(keys.acct(a), _export_sk(job_id), set={"status": "running", "started_at": now},
                           add={"attempts": 1}, condition="#s IN (:q, :r)", names={"#s": "status"},
                           values={":q": "queued", ":r": "running"})
    except ConditionFailed:
        return None


def export_progress(a: str, job_id: str, processed: int) -> None:
    try:
        _t().update(keys.acct(a), _export_sk(job_id), set={"processed": processed}, condition="#s = :r",
                    names={"#s": "status"}, values={":r": "running"}, return_values="NONE")
    except ConditionFailed:
        pass


def finish_export_job(a: str, job_id: str, status: str, now: str, *, processed: int | None = None,
                      error: str | None = None) -> bool:
    """running → completed|failed, once; False when the job was not running."""
    s: dict = {"status": status, "finished_at": now}
    if processed is not None:
        s.update(processed=processed, total=processed)
    if error:
        s["failure"] = error
    try:
        _t().update(keys.acct(a), _export_sk(job_id), set=s, condition="#s = :r", names={"#s": "status"},
                    values={":r": "running"}, return_values="NONE")
        return True
    except ConditionFailed:
        return False


# ---------------------------------------------------------------- queue
def enqueue(message: dict) -> None:
    aws.client("sqs").send_message(QueueUrl=settings().import_queue_url, MessageBody=json.dumps(message))
