"""Uploaded attachments in the files bucket: ``attachments/{account}/{attachment_id}`` (the
prefix expires after a day by a bucket lifecycle rule). Object metadata ``filename`` (percent-
encoded) and the object's Content-Type carry what the upload form fixed."""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, unquote

from lambdakit import s3

from ..settings import settings

PREFIX = "attachments/"


@dataclass
class Stored:
    size: int
    type: str
    filename: str


def key(account_id: str, attachment_id: str) -> str:
    return f"{PREFIX}{account_id}/{attachment_id}"


def presigned_upload(k: str, *, filename: str, content_type: str, max_bytes: int, ttl: int) -> dict:
    meta = quote(filename, safe="")
    return s3.presign_post(settings().files_bucket, k,
                           fields={"Content-Type": content_type, "x-amz-meta-filename": meta},
                           conditions=[["content-length-range", 1, max_bytes], {"Content-Type": content_type},
                                       {"x-amz-meta-filename": meta}], expires=ttl)


#: without s3:ListBucket S3 answers a missing key with 403: an upload that is not (or no longer) there
_ABSENT = s3.MISSING_CODES | {"403"}


def head(k: str) -> Stored | None:
    """The stored upload, ``None`` when absent; S3 failures are ``lambdakit.s3``'s (503/500)."""
    h = s3.head(settings().files_bucket, k, missing=_ABSENT)
    if h is None:
        return None
    return Stored(size=int(h["ContentLength"]), type=h.get("ContentType") or "application/octet-stream",
                  filename=unquote((h.get("Metadata") or {}).get("filename") or ""))


def read(k: str) -> bytes | None:
    return s3.get(settings().files_bucket, k, missing=_ABSENT)
