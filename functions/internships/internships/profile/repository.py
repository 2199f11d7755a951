"""Avatar objects in the files bucket (``avatars/<user_id>/<random>.<ext>``) and presigned reads.
S3 failures are ``lambdakit.s3``'s domain errors (503 ``Retry-After`` when transient, else 500)."""
from __future__ import annotations

from lambdakit import s3

from ..settings import settings


def put_avatar(key: str, data: bytes, content_type: str) -> None:
    s3.put(settings().files_bucket, key, data, content_type=content_type,
           CacheControl="public, max-age=31536000, immutable")


def delete_quietly(key: str) -> bool:
    """Best effort (an object no user points at); never raises."""
    return s3.delete_quietly(settings().files_bucket, key)


def presigned_get(key: str, seconds: int = 3600) -> str:
    return s3.presign_url("get_object", settings().files_bucket, key, seconds)
