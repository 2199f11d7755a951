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

from lambdakit import aws
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, Contention

from ..common import keys
from ..settings import settings

MAX_ERRORS_KEPT = 100


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


def finish(a: str, job_id: str, status: str, now: str, error: str | None = None) -> None:
    """running → ``status``; a job read back as no longer running was finished already."""
    s = {"status": status, "finished_at": now}
    if error:
        s["failure"] = error
    for _try in range(2):
        try:
            _t().update(keys.acct(a), f"IMPORT#{job_id}", set=s, condition="#s = :running",
                        names={"#s": "status"}, values={":running": "running"}, return_values="NONE")
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
    return aws.client("s3").generate_presigned_post(
        Bucket=settings().import_bucket, Key=key, Fields={"Content-Type": "text/csv"},
        Conditions=[["content-length-range", 1, max_bytes], {"Content-Type": "text/csv"}], ExpiresIn=ttl)


def read_upload(bucket: str, key: str) -> bytes:
    return aws.client("s3").get_object(Bucket=bucket, Key=key)["Body"].read()


def upload_size(bucket: str, key: str) -> int:
    return int(aws.client("s3").head_object(Bucket=bucket, Key=key)["ContentLength"])


def delete_upload(bucket: str, key: str) -> None:
    aws.client("s3").delete_object(Bucket=bucket, Key=key)


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
