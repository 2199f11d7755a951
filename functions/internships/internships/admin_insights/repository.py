"""DynamoDB access for settings, the analytics cache and the counters analytics read."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lambdakit import clock
from lambdakit.conditions import Attr, Condition
from lambdakit.ddb import Table

from ..settings import settings

SETTINGS_KEY = ("SETTINGS", "SITE")


def table() -> Table:
    return Table(settings().table_name)


# ---------------------------------------------------------------- site settings
def get_site_settings() -> dict:
    return table().get(*SETTINGS_KEY, consistent=True) or {}


def put_site_settings(changes: dict[str, Any], admin_id: str) -> dict:
    return table().update(*SETTINGS_KEY, set={**changes, "updated_at": clock.now_iso(), "updated_by": admin_id})


# ---------------------------------------------------------------- export files (S3)
class MultipartCsvUpload:
    """Streams an export to S3 with a multipart upload (parts of at least 5 MiB, the last
    one smaller); ``abort`` on failure so no half-written object is ever visible. S3 failures
    are ``lambdakit.s3``'s domain errors (503 ``Retry-After`` when transient, else 500)."""

    PART_SIZE = 8 * 1024 * 1024

    def __init__(self, key: str, filename: str) -> None:
        from lambdakit import aws, s3

        self.s3 = aws.client("s3")
        self.guard = s3.guard
        self.bucket = settings().files_bucket
        self.key = key
        self.buffer = bytearray()
        self.parts: list[dict] = []
        with self.guard("CreateMultipartUpload", "The export could not be stored"):
            resp = self.s3.create_multipart_upload(
                Bucket=self.bucket, Key=key, ContentType="text/csv; charset=utf-8",
                ContentDisposition=f'attachment; filename="{filename}"', ServerSideEncryption="AES256")
        self.upload_id = resp["UploadId"]

    def write(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) >= self.PART_SIZE:
            self._flush()

    def _flush(self) -> None:
        if not self.buffer and self.parts:
            return
        n = len(self.parts) + 1
        with self.guard("UploadPart", "The export could not be stored"):
            resp = self.s3.upload_part(Bucket=self.bucket, Key=self.key, UploadId=self.upload_id, PartNumber=n,
                                       Body=bytes(self.buffer))
        self.parts.append({"ETag": resp["ETag"], "PartNumber": n})
        self.buffer = bytearray()

    def complete(self) -> None:
        self._flush()
        with self.guard("CompleteMultipartUpload", "The export could not be stored"):
            self.s3.complete_multipart_upload(Bucket=self.bucket, Key=self.key, UploadId=self.upload_id,
                                              MultipartUpload={"Parts": self.parts})

    def abort(self) -> None:
        try:
            self.s3.abort_multipart_upload(Bucket=self.bucket, Key=self.key, UploadId=self.upload_id)
        except Exception:  # noqa: BLE001 - best effort; a lifecycle rule also expires incomplete uploads
            pass


def presign_download(key: str, expires: int) -> str:
    from lambdakit import s3

    return s3.presign_url("get_object", settings().files_bucket, key, expires)


# ---------------------------------------------------------------- counters read by analytics
def counter_keys(names: list[str]) -> list[tuple[str, str]]:
    return [("COUNTERS", n) for n in names]


def counters(names: list[str], read: Mapping[tuple[str, str], dict | None] | None = None) -> dict[str, dict]:
    """``pk="COUNTERS"`` items by sort key (one BatchGetItem per 100 names; eventually consistent).
    ``read``: items already read (``auth.read_with_auth``): used when it holds every one of them."""
    keys = counter_keys(names)
    if read is not None and all(k in read for k in keys):
        items = [i for k in keys if (i := read[k]) is not None]
    else:
        items = table().batch_get(keys)
    return {i["sk"]: i for i in items}


def counter_item(pk: str, sk: str, read: Mapping[tuple[str, str], dict | None] | None = None) -> dict:
    item = read[(pk, sk)] if read is not None and (pk, sk) in read else table().get(pk, sk)
    return item or {}


# ---------------------------------------------------------------- analytics cache
def cache_get(kind: str) -> dict | None:
    return table().get("CACHE#ANALYTICS", kind, consistent=True)


def cache_put(kind: str, data: dict, computed_ts: float, ttl_seconds: int) -> None:
    table().put({"pk": "CACHE#ANALYTICS", "sk": kind, "data": data, "computed_ts": int(computed_ts * 1000),
                 "ttl": int(computed_ts) + ttl_seconds + 3600})


def iter_index(pk_value: str, *, index: str, sk_between: tuple[str, str] | None = None, filter=None,
               columns: list[str] | None = None):
    """Every item of an index partition, newest first, 1 MB page by page (exports only).

    ``columns`` becomes a ``ProjectionExpression``: only the exported attributes travel
    (fewer bytes read per page, far less (de)serialisation per row — the dominant cost of
    a 50,000-row export, on DynamoDB and even more on the emulator)."""
    return table().iter_query(pk_value, index=index, sk_between=sk_between, filter=filter, columns=columns,
                              forward=False)


def list_domains() -> list[dict]:
    return table().query_all("DOMAINS", index="gsi1", max_items=1000)


def attr_eq(name: str, value: Any) -> Condition:
    return Attr(name).eq(value)


def recent_completed_enrollments(limit: int) -> list[dict]:
    items, _ = table().query("ENROLLS#completed", index="gsi3", forward=False, limit=limit)
    return items
