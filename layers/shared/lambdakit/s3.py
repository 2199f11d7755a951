"""S3 calls for the repositories, and the ONE mapping of S3/botocore failures to domain errors
(issue 23 rule 4: "an S3 upload or presign failure: a clear error, nothing recorded as uploaded").

Every repository that touches S3 goes through these functions (or ``guard`` for a call they do
not cover), so the three services answer an S3 fault alike, each in its own error format:

* S3 busy or out of reach once botocore's retries are spent: an error code that says so
  (``SlowDown``, ``ServiceUnavailable``, ``InternalError``, ``RequestTimeout``...), any 5xx, a
  connection or read timeout, a dropped connection, a response stream cut short, a credential
  refresh that failed → ``FileStoreUnavailable``: 503, ``Retry-After: 1``,
  ``FILE_STORE_UNAVAILABLE``;
* an object that is not there (``NoSuchKey``, ``404``): ``get``/``head`` answer ``None`` and the
  caller decides what that means (a 404, "expired", render it again...);
* anything else (``AccessDenied``, no credentials at all, a parameter S3 or botocore rejects) →
  ``FileStoreError``: 500, ``FILE_STORE_ERROR``, a message without internals; the AWS code is
  logged with the operation.

Order of work (how callers keep "nothing recorded as uploaded"): upload the object and make its
presigned links FIRST, then write the DynamoDB record that points at it. A failed upload or
presign leaves no record; a failed record leaves an object no item references, under a key never
handed out (random or derived from the item's id), which the caller deletes at once with
``delete_quietly`` and which a bucket lifecycle rule expires where the prefix has one.
"""
from __future__ import annotations

import contextlib
import logging
from typing import Any, Iterator

from . import aws
from .errors import FileStoreError, FileStoreUnavailable

logger = logging.getLogger("lambdakit.s3")

#: S3 error codes that mean "busy or briefly broken, retry later".
TRANSIENT_CODES = frozenset({"SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout", "Throttling",
                             "ThrottlingException", "RequestLimitExceeded", "TooManyRequests", "ExpiredToken",
                             "RequestTimeTooSkewed", "OperationAborted"})
#: Codes of an object (or its bucket key) that is not there.
MISSING_CODES = frozenset({"NoSuchKey", "404", "NotFound"})


def _client() -> Any:
    return aws.client("s3")


def is_transient(exc: BaseException) -> bool:
    """Does ``exc`` (raised by an S3 call or by reading its body) say "retry later"?"""
    from botocore import exceptions as bx

    if isinstance(exc, FileStoreUnavailable):
        return True
    if isinstance(exc, (bx.ConnectionError, bx.HTTPClientError, bx.IncompleteReadError, bx.CredentialRetrievalError,
                        bx.FlexibleChecksumError)):
        return True
    response = getattr(exc, "response", None)
    if isinstance(exc, bx.ClientError) and isinstance(response, dict):
        code = str((response.get("Error") or {}).get("Code", ""))
        status = int((response.get("ResponseMetadata") or {}).get("HTTPStatusCode") or 0)
        return code in TRANSIENT_CODES or status >= 500
    return False


def error_code(exc: BaseException) -> str:
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        return str((response.get("Error") or {}).get("Code", ""))
    return type(exc).__name__


def is_missing(exc: BaseException, codes: frozenset[str] = MISSING_CODES) -> bool:
    from botocore.exceptions import ClientError

    return isinstance(exc, ClientError) and error_code(exc) in codes


def classify(exc: BaseException, *, operation: str, failed: str) -> Exception:
    """The domain error for an S3 failure (logged once here): ``FileStoreUnavailable`` for a
    transient one, ``FileStoreError`` (message ``failed``) for any other."""
    if isinstance(exc, (FileStoreUnavailable, FileStoreError)):
        return exc
    code = error_code(exc)
    if is_transient(exc):
        logger.warning("s3 unavailable", extra={"aws_error_code": code, "aws_operation": operation})
        return FileStoreUnavailable(aws_code=code)
    logger.error("s3 error", extra={"aws_error_code": code, "aws_operation": operation})
    return FileStoreError(failed, aws_code=code)


@contextlib.contextmanager
def guard(operation: str, failed: str = "The file store failed") -> Iterator[None]:
    """Translate the S3/botocore failures of the block (one ``classify``); domain errors and
    anything that is not an AWS failure pass through unchanged."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except (BotoCoreError, ClientError) as exc:
        raise classify(exc, operation=operation, failed=failed) from exc


# ---------------------------------------------------------------- objects
def put(bucket: str, key: str, body: bytes, *, content_type: str, **extra: Any) -> None:
    """Store an object (SSE-S3 unless ``extra`` says otherwise)."""
    extra.setdefault("ServerSideEncryption", "AES256")
    with guard("PutObject", "The file could not be stored"):
        _client().put_object(Bucket=bucket, Key=key, Body=body, ContentType=content_type, **extra)


def get(bucket: str, key: str, *, max_bytes: int | None = None,
        missing: frozenset[str] = MISSING_CODES) -> bytes | None:
    """An object's bytes, or ``None`` when it is not there (``missing`` codes). An object over
    ``max_bytes`` raises ``ObjectTooLarge`` before its body is read. A body cut short while
    reading is a transient failure like the call's own."""
    with guard("GetObject", "The file could not be read"):
        try:
            obj = _client().get_object(Bucket=bucket, Key=key)
        except Exception as exc:
            if is_missing(exc, missing):
                return None
            raise
        if max_bytes is not None and int(obj.get("ContentLength") or 0) > max_bytes:
            obj["Body"].close()
            raise ObjectTooLarge(key, int(obj.get("ContentLength") or 0), max_bytes)
        return obj["Body"].read()


def head(bucket: str, key: str, *, missing: frozenset[str] = MISSING_CODES) -> dict | None:
    """``HeadObject``'s answer, or ``None`` when the object is not there (``missing`` codes:
    without ``s3:ListBucket`` S3 answers a missing key with 403, callers may count it in)."""
    with guard("HeadObject", "The file could not be read"):
        try:
            return _client().head_object(Bucket=bucket, Key=key)
        except Exception as exc:
            if is_missing(exc, missing):
                return None
            raise


def delete(bucket: str, key: str) -> None:
    with guard("DeleteObject", "The file could not be deleted"):
        _client().delete_object(Bucket=bucket, Key=key)


def delete_quietly(bucket: str, key: str) -> bool:
    """Best-effort cleanup of an object no record points at (after the record's write failed,
    or when replacing one): never raises; ``False`` (and a log line) when it stays behind."""
    try:
        delete(bucket, key)
        return True
    except Exception:  # noqa: BLE001 - cleanup must not hide the error being answered
        logger.warning("s3 object left behind", extra={"s3_key": key})
        return False


class ObjectTooLarge(ValueError):
    def __init__(self, key: str, size: int, limit: int) -> None:
        super().__init__(f"object {key} is {size} bytes, over {limit}")
        self.key, self.size, self.limit = key, size, limit


# ---------------------------------------------------------------- presigned links
def presign_url(method: str, bucket: str, key: str, expires: int, **params: Any) -> str:
    """A presigned URL (``get_object``/``put_object``): signed locally, it fails only when the
    credentials cannot be had (``NoCredentialsError``: 500; a failed refresh: 503)."""
    with guard(f"presign {method}", "A link to the file could not be made"):
        return _client().generate_presigned_url(method, Params={"Bucket": bucket, "Key": key, **params},
                                                ExpiresIn=expires)


def presign_post(bucket: str, key: str, *, fields: dict, conditions: list, expires: int) -> dict:
    """A presigned POST form (``{"url", "fields"}``), failing like ``presign_url``."""
    with guard("presign post", "An upload form could not be made"):
        return _client().generate_presigned_post(Bucket=bucket, Key=key, Fields=fields, Conditions=conditions,
                                                 ExpiresIn=expires)
