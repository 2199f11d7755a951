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

from botocore.exceptions import BotoCoreError, ClientError

from lambdakit import aws
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, Contention, ServiceUnavailable

from ..common import keys
from ..settings import settings

MAX_ERRORS_KEPT = 100
logger = logging.getLogger("campaigns.contacts")


class StorageUnavailable(ServiceUnavailable):
    """S3 failed for a reason that may pass (5xx, SlowDown, throttling, a timeout or a lost
    connection, credentials not available): 503 ``STORAGE_UNAVAILABLE`` with ``Retry-After``;
    the import worker leaves the job retryable (issue 23 rule 4)."""

    status, code = 503, "STORAGE_UNAVAILABLE"

    def __init__(self, message: str = "File storage is unavailable, please retry", *, aws_code: str = "",
                 **kw: Any) -> None:
        kw.setdefault("headers", {"Retry-After": "5"})
        super().__init__(message, **kw)
        self.aws_code = aws_code


class UploadUnreadable(Exception):
    """The uploaded import file cannot be read and retrying will not help (it is gone, or
    access is denied): the job fails with this reason."""

    def __init__(self, message: str, aws_code: str = "") -> None:
        super().__init__(message)
        self.message, self.aws_code = message, aws_code


_MISSING = {"NoSuchKey", "404", "NotFound", "NoSuchBucket"}
_DENIED = {"AccessDenied", "403", "Forbidden", "InvalidObjectState", "AllAccessDisabled"}


def _s3(what: str, fn: Callable[[], Any], *, upload: bool = False) -> Any:
    """Run one S3 call; its failure becomes ``StorageUnavailable`` (503, retry), or, for a read
    of an uploaded file (``upload``), ``UploadUnreadable`` when the object is gone or denied."""
    try:
        return fn()
    except ClientError as exc:
        err: dict = dict(exc.response.get("Error") or {})
        meta: dict = dict(exc.response.get("ResponseMetadata") or {})
        code, status = str(err.get("Code") or ""), int(meta.get("HTTPStatusCode") or 0)
        logger.warning("s3 call failed", extra={"s3_op": what, "aws_code": code, "http_status": status})
        if upload and code in _MISSING:
            raise UploadUnreadable("The uploaded file was not found (it expired or was removed)", code) from None
        if upload and code in _DENIED:
            raise UploadUnreadable("The uploaded file could not be read (access denied)", code) from None
        raise StorageUnavailable(f"File storage is unavailable ({what}), please retry", aws_code=code) from None
    except BotoCoreError as exc:  # timeouts, lost connections, no credentials
        logger.warning("s3 call failed", extra={"s3_op": what, "aws_code": type(exc).__name__})
        raise StorageUnavailable(f"File storage is unavailable ({what}), please retry",
                                 aws_code=type(exc).__name__) from None


def _t() -> Table:
    return Table(settings().table_name)


def put_job(a: str, job: dict) -> None:
    _t().put_new({"pk": keys.acct(a), "sk": f"IMPORT#{job['job_id']}", **job})


def get_job(a: str, job_id: str, *, consistent: bool = False) -> dict | None:
    return _t().get(keys.acct(a), f"IMPORT#{job_id}", consistent=consistent)


def _unconfirmed() -> Contention:
    """A condition failure the job read back does not explain, twice: 503, the worker retries."""
    return Contention("The import job could not be updated, please retry", reasons=["ConditionUnconfirmed"])


def start_job(a: str, job_id: str, now: str, total: int) -> dict | None:
    """awaiting_upload → running (once); a running job is returned as is (resumption), a missing
    or finished one is ``None``. A condition failure is confirmed from the job item (issue 23
    rule 2): a job read back still awaiting its upload is started again."""
    for _try in range(2):
        try:
            return _t().update(keys.acct(a), f"IMPORT#{job_id}", set={"status": "running", "started_at": now},
                               set_if_absent={"total": total}, condition="#s = :waiting", names={"#s": "status"},
                               values={":waiting": "awaiting_upload"})
        except ConditionFailed:
            job = get_job(a, job_id, consistent=True)
            if not job or job.get("status") != "awaiting_upload":
                return job if job and job.get("status") == "running" else None
    raise _unconfirmed()


def advance(a: str, job_id: str, expected_processed: int, delta: dict[str, int | float], errors: list[dict],
            job_errors_len: int) -> bool:
    """Commit one chunk's progress; False when another worker already advanced the job (read
    back: no longer running, or ``processed`` moved by other than this chunk). A job read back
    at ``expected_processed + this chunk`` is this commit, applied with its answer lost."""
    keep = errors[: max(0, MAX_ERRORS_KEPT - job_errors_len)]
    for _try in range(2):
        try:
            _t().update(keys.acct(a), f"IMPORT#{job_id}", add=delta, append={"errors": keep} if keep else None,
                        condition="#s = :running AND #p = :p", names={"#s": "status", "#p": "processed"},
                        values={":running": "running", ":p": expected_processed}, return_values="NONE")
            return True
        except ConditionFailed:
            job = get_job(a, job_id, consistent=True) or {}
            done = int(job.get("processed") or 0)
            if job.get("status") != "running":
                return False
            if done == expected_processed + int(delta.get("processed") or 0):
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
    """The presigned POST form of an import upload (signed locally; a failure, e.g. no
    credentials, is ``StorageUnavailable``)."""
    return _s3("presign", lambda: aws.client("s3").generate_presigned_post(
        Bucket=settings().import_bucket, Key=key, Fields={"Content-Type": "text/csv"},
        Conditions=[["content-length-range", 1, max_bytes], {"Content-Type": "text/csv"}], ExpiresIn=ttl))


def read_upload(bucket: str, key: str) -> bytes:
    return _s3("read upload", lambda: aws.client("s3").get_object(Bucket=bucket, Key=key)["Body"].read(),
               upload=True)


def upload_size(bucket: str, key: str) -> int:
    return int(_s3("read upload", lambda: aws.client("s3").head_object(Bucket=bucket, Key=key)["ContentLength"],
                   upload=True))


def delete_upload(bucket: str, key: str) -> None:
    """Remove a processed upload; a failure is logged only (the bucket's lifecycle rule
    expires ``imports/`` after a day), never a failure of the finished job."""
    try:
        _s3("delete upload", lambda: aws.client("s3").delete_object(Bucket=bucket, Key=key))
    except StorageUnavailable:
        pass


def put_export(key: str, body: bytes, content_type: str, filename: str, ttl: int) -> str:
    aws.client("s3").put_object(Bucket=settings().files_bucket, Key=key, Body=body, ContentType=content_type,
                                ContentDisposition=f'attachment; filename="{filename}"')
    return export_url(key, ttl)


def export_url(key: str, ttl: int) -> str:
    """Presigned GET of an export object (no AWS call; valid before the object exists)."""
    return aws.client("s3").generate_presigned_url("get_object", Params={"Bucket": settings().files_bucket,
                                                                         "Key": key}, ExpiresIn=ttl)


def upload_export(key: str, fileobj, content_type: str, filename: str) -> None:
    """Stream a file object to the files bucket (managed transfer: multipart above 8 MB)."""
    aws.client("s3").upload_fileobj(fileobj, settings().files_bucket, key, ExtraArgs={
        "ContentType": content_type, "ContentDisposition": f'attachment; filename="{filename}"'})


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
