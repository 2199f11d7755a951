"""Uploaded attachments in the files bucket: ``attachments/{account}/{attachment_id}`` (the
prefix expires after a day by a bucket lifecycle rule). Object metadata ``filename`` (percent-
encoded) and the object's Content-Type carry what the upload form fixed."""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, unquote

from lambdakit import aws

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
    return aws.client("s3").generate_presigned_post(
        Bucket=settings().files_bucket, Key=k,
        Fields={"Content-Type": content_type, "x-amz-meta-filename": meta},
        Conditions=[["content-length-range", 1, max_bytes], {"Content-Type": content_type},
                    {"x-amz-meta-filename": meta}],
        ExpiresIn=ttl)


def head(k: str) -> Stored | None:
    from botocore.exceptions import ClientError

    try:
        h = aws.client("s3").head_object(Bucket=settings().files_bucket, Key=k)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound", "403"):
            return None
        raise
    return Stored(size=int(h["ContentLength"]), type=h.get("ContentType") or "application/octet-stream",
                  filename=unquote((h.get("Metadata") or {}).get("filename") or ""))


def read(k: str) -> bytes | None:
    from botocore.exceptions import ClientError

    try:
        return aws.client("s3").get_object(Bucket=settings().files_bucket, Key=k)["Body"].read()
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound", "403"):
            return None
        raise
