"""CSV exports of users, enrollments, certificates and domains.

Rows are produced by a generator over key queries (never a Scan), written with the
csv module through ``lambdakit.csvsafe.writer``: every cell, the header included, is
neutralised (formula injection).
Up to ``export_direct_max_rows`` rows are returned in the response body (a direct
download); beyond that the file is streamed to S3 with a multipart upload and the
response carries a presigned URL. The decision needs no count: the first rows are
buffered and the upload starts only when the buffer overflows.
"""
from __future__ import annotations

import io
from typing import Any, Iterable, Iterator

from lambdakit import clock, csvsafe, ids
from lambdakit.errors import ValidationFailed

from .. import activity
from ..settings import settings
from . import export_sources as sources
from . import repository as repo


def _cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        v = ";".join(str(x) for x in v)
    if isinstance(v, dict):
        import json

        v = json.dumps(v, separators=(",", ":"), default=str)
    return v if not isinstance(v, str) else v.replace("\x00", "")


class _Encoder:
    def __init__(self, columns: list[str]) -> None:
        self.buf = io.StringIO()
        self.w = csvsafe.writer(self.buf, lineterminator="\r\n")
        self.columns = columns

    def header(self) -> bytes:
        # a BOM so spreadsheet tools read UTF-8
        self.w.writerow(self.columns)
        return b"\xef\xbb\xbf" + self._take()

    def row(self, row: dict) -> bytes:
        self.w.writerow([_cell(row.get(c)) for c in self.columns])
        return self._take()

    def _take(self) -> bytes:
        data = self.buf.getvalue().encode("utf-8")
        self.buf.seek(0)
        self.buf.truncate(0)
        return data


def write_csv(columns: list[str], rows: Iterable[dict], *, direct_max_rows: int, key: str,
              filename: str) -> dict:
    """Encode rows; ``{"mode": "direct", "body": bytes, "rows": n}`` or ``{"mode": "s3", "key", "rows"}``."""
    enc = _Encoder(columns)
    head = enc.header()
    buffered: list[bytes] = []
    it: Iterator[dict] = iter(rows)
    n = 0
    for row in it:
        buffered.append(enc.row(row))
        n += 1
        if n > direct_max_rows:
            break
    else:
        return {"mode": "direct", "body": head + b"".join(buffered), "rows": n}
    up = repo.MultipartCsvUpload(key, filename)
    try:
        up.write(head + b"".join(buffered))
        buffered.clear()
        for row in it:
            up.write(enc.row(row))
            n += 1
        up.complete()
    except BaseException:
        up.abort()
        raise
    return {"mode": "s3", "key": key, "rows": n}


def run(admin_id: str, entity: str, filters: dict, delivery: str = "auto") -> dict:
    source = sources.SOURCES.get(entity)
    if source is None:
        raise ValidationFailed("entity must be one of users, enrollments, certificates, domains",
                               fields={"entity": "Unsupported entity"})
    columns, rows = source(filters)
    cfg = settings()
    stamp = clock.now().strftime("%Y%m%d-%H%M%S")
    filename = f"{entity}-{stamp}.csv"
    key = f"exports/{clock.today()}/{ids.new_id()}/{filename}"
    limit = cfg.export_direct_max_rows
    if delivery == "s3":
        limit = -1
    elif delivery == "direct":
        limit = cfg.export_direct_hard_max_rows
    result = write_csv(columns, rows, direct_max_rows=limit, key=key, filename=filename)
    result["filename"] = filename
    if result["mode"] == "s3":
        # the link before the activity entry: an S3 failure (503/500) records no "export.create"
        # (the stored file, named by a fresh id, is never handed out and expires with exports/)
        ttl = cfg.export_url_ttl_seconds
        result["url"] = repo.presign_download(key, ttl)
        import datetime as _dt

        result["expiresAt"] = clock.iso(clock.now() + _dt.timedelta(seconds=ttl))
    activity.record(admin_id, "export.create", "export", entity,
                    after={"entity": entity, "filters": filters, "rows": result["rows"], "mode": result["mode"]})
    return result
