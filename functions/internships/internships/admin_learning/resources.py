"""Admin learning resources: CRUD, multipart upload to S3, presigned upload URLs.

A ``file_key`` in a create/update body is a client-named object key (issue 32 item 4): beyond its
shape (the model, ``lambdakit.objectkeys``), it must be a key the upload or sign route issued to the
same admin (``objectkeys.issue``/``require_issued``), or the one the resource already holds."""
from __future__ import annotations

import re

from lambdakit import clock, ids, objectkeys
from lambdakit.errors import BadRequest, NotFound, ValidationFailed

from .. import activity
from ..settings import settings
from . import repository as repo

ALLOWED_TYPES = {
    "application/pdf": ".pdf", "image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp",
    "text/plain": ".txt", "text/markdown": ".md", "application/zip": ".zip", "video/mp4": ".mp4",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
}


def _get(rid: str) -> dict:
    r = repo.get_resource(rid)
    if not r:
        raise NotFound("Resource not found")
    return r


KEY_PREFIX = "resources/"
KEY_PURPOSE = "resource"


def _check_key(admin_id: str, key: str | None, current: str | None = None) -> None:
    if key:
        objectkeys.require_issued(repo.table(), key, prefix=KEY_PREFIX, purpose=KEY_PURPOSE, owner=admin_id,
                                  current=current)


def _check_target(data: dict) -> None:
    if not data.get("url") and not data.get("file_key"):
        raise ValidationFailed("url or file_key is required", fields={"url": "url or file_key is required"})
    if not repo.get_domain(data["domain_id"]):
        raise ValidationFailed("domain_id does not exist", fields={"domain_id": "Unknown domain"})


def list_resources(*, domain_id, week, resource_type, offset, limit, cursor):
    eq = {}
    if resource_type:
        eq["resource_type"] = resource_type
    if domain_id:
        pk, index = f"DOMAIN#{domain_id}#RESOURCES", "gsi1"
        bounds = (f"W#{week:03d}#", f"W#{week:03d}#~") if week else None
        flt = repo.attr_filter(eq)
        items, nxt = repo.page(pk, index, flt=flt, bounds=bounds, offset=offset, limit=limit, cursor=cursor)
        total, exact = repo.count_query(pk, index, flt=flt, bounds=bounds)
    else:
        if week:
            eq["week"] = week
        flt = repo.attr_filter(eq)
        items, nxt = repo.page("RESOURCES", "gsi2", flt=flt, offset=offset, limit=limit, cursor=cursor)
        total, exact = (repo.count("resources"), True) if flt is None else repo.count_query("RESOURCES", "gsi2",
                                                                                            flt=flt)
    return items, total, exact, nxt


def get(rid: str) -> dict:
    r = _get(rid)
    if r.get("file_key"):
        r["download_url"] = repo.presign("get_object", r["file_key"], 3600)
    return r


def create(admin_id: str, data: dict) -> dict:
    _check_target(data)
    _check_key(admin_id, data.get("file_key"))
    now = clock.now_iso()
    r = {k: v for k, v in data.items() if v is not None}
    r.update({"id": ids.sortable_id(), "created_at": now, "updated_at": now, "created_by": admin_id})
    repo.create_resource(r)
    activity.record(admin_id, "resource.create", "resource", r["id"], after=r)
    return r


def update(admin_id: str, rid: str, changes: dict) -> dict:
    before = _get(rid)
    merged = {**before}
    for k, v in changes.items():
        if v is None:
            merged.pop(k, None)
        else:
            merged[k] = v
    if "domain_id" in changes or "url" in changes or "file_key" in changes:
        _check_target(merged)
    if changes.get("file_key"):
        _check_key(admin_id, changes["file_key"], current=before.get("file_key"))
    merged["updated_at"] = clock.now_iso()
    merged["updated_by"] = admin_id
    repo.replace_resource(merged, before["updated_at"])
    activity.record(admin_id, "resource.update", "resource", rid, before={k: before.get(k) for k in changes},
                    after={k: merged.get(k) for k in changes})
    return merged


def delete(admin_id: str, rid: str) -> None:
    before = _get(rid)
    if not repo.delete_resource(rid):
        raise NotFound("Resource not found")
    activity.record(admin_id, "resource.delete", "resource", rid, before=before)


def _safe_name(filename: str) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", filename.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]).strip(".-")
    return base[:100] or "file"


def _key(filename: str, content_type: str) -> str:
    name = _safe_name(filename)
    ext = ALLOWED_TYPES[content_type]
    if not name.lower().endswith(ext):
        name += ext
    return f"resources/{clock.now().strftime('%Y/%m')}/{ids.new_id()}/{name}"


def _sniff(data: bytes) -> str | None:
    from lambdakit.multipart import sniff_image

    img = sniff_image(data)
    if img:
        return img
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    if data.startswith(b"PK\x03\x04"):
        return "zip"
    if len(data) > 8 and data[4:8] == b"ftyp":
        return "video/mp4"
    return None


def upload(admin_id: str, body: bytes, content_type_header: str | None) -> dict:
    from lambdakit.multipart import parse

    form = parse(body, content_type_header, max_bytes=settings().resource_max_upload_bytes)
    f = form.files.get("file")
    if f is None or not f.data:
        raise ValidationFailed("file is required", fields={"file": "Field required"})
    rtype = form.fields.get("resource_type", "file")
    declared = (f.content_type or "").split(";")[0].strip().lower()
    sniffed = _sniff(f.data)
    if declared not in ALLOWED_TYPES:
        raise BadRequest(f"File type {declared or 'unknown'} is not allowed")
    # the declared type must agree with the bytes for binary formats we can recognise
    if sniffed and sniffed != declared and not (sniffed == "zip" and declared.startswith(("application/zip",
                                                                                        "application/vnd."))):
        raise BadRequest("File content does not match its type")
    if declared in ("application/pdf", "image/png", "image/jpeg", "image/webp") and sniffed != declared:
        raise BadRequest("File content does not match its type")
    key = _key(f.filename, declared)
    url = repo.presign("get_object", key, 3600)  # before the upload: a presign failure stores nothing
    objectkeys.issue(repo.table(), key, purpose=KEY_PURPOSE, owner=admin_id)  # harmless if the put fails
    repo.s3_put(key, f.data, declared)  # an S3 failure: 503/500, and no "resource.upload" entry
    activity.record(admin_id, "resource.upload", "file", key, after={"size": len(f.data), "content_type": declared,
                                                                     "resource_type": rtype})
    return {"key": key, "file_key": key, "contentType": declared, "size": len(f.data), "resource_type": rtype,
            "url": url}


def sign(admin_id: str, filename: str, content_type: str, resource_type: str) -> dict:
    ct = content_type.split(";")[0].strip().lower()
    if ct not in ALLOWED_TYPES:
        raise BadRequest(f"File type {ct} is not allowed")
    key = _key(filename, ct)
    ttl = settings().resource_upload_url_ttl_seconds
    url = repo.presign("put_object", key, ttl, ct)
    objectkeys.issue(repo.table(), key, purpose=KEY_PURPOSE, owner=admin_id)
    activity.record(admin_id, "resource.sign", "file", key, after={"content_type": ct, "resource_type": resource_type})
    return {"uploadUrl": url, "method": "PUT", "headers": {"Content-Type": ct}, "key": key, "file_key": key,
            "expiresIn": ttl}
