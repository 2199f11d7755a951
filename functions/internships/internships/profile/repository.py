"""Avatar objects in the files bucket (``avatars/<user_id>/<random>.<ext>``) and presigned reads."""
from __future__ import annotations

from lambdakit import aws

from ..settings import settings


def put_avatar(key: str, data: bytes, content_type: str) -> None:
    aws.client("s3").put_object(Bucket=settings().files_bucket, Key=key, Body=data, ContentType=content_type,
                                CacheControl="public, max-age=31536000, immutable", ServerSideEncryption="AES256")


def delete_object(key: str) -> None:
    aws.client("s3").delete_object(Bucket=settings().files_bucket, Key=key)


def presigned_get(key: str, seconds: int = 3600) -> str:
    return aws.client("s3").generate_presigned_url("get_object", Params={"Bucket": settings().files_bucket,
                                                                         "Key": key}, ExpiresIn=seconds)
