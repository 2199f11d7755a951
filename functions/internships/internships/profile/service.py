"""Profile rules (email and role immutable), avatar upload (≤ ``avatar_max_bytes``, 4 MiB, the most that
fits a Lambda event with headroom: an image typed by magic bytes, S3) and the avatar image proxy
(allow-listed hosts only, SSRF-checked, no redirects, same size limit)."""
from __future__ import annotations

import http.client
import logging
from urllib.parse import urlsplit

from lambdakit import clock
from lambdakit.errors import ApiError, BadRequest, NotFound
from lambdakit.security import random_token

from ..accounts import phones
from ..accounts import repository as users
from ..accounts import service as accounts
from ..settings import settings
from . import repository as repo

logger = logging.getLogger("internships.profile")
EXT = {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp"}


def get(p, user: dict | None = None) -> dict:
    """The caller's profile; ``user``: their item as authentication read it in this request (the same
    eventually consistent read), else it is read here."""
    u = user if user is not None else users.get_user(p.user_id)
    if not u:
        raise NotFound("User not found")
    return accounts.public_user(u)


def update(p, data) -> dict:
    current = users.get_user(p.user_id, consistent=True)
    if not current:
        raise NotFound("User not found")
    if data.email is not None and data.email.strip().lower() != current["email"]:
        raise BadRequest("Email cannot be changed")
    if data.role is not None and data.role != current.get("role"):
        raise BadRequest("Role cannot be changed")
    raw = data.model_dump(exclude_unset=True, exclude={"email", "role"})
    fields = {k: v for k, v in raw.items() if v not in (None, "")}
    remove = [k for k, v in raw.items() if v in (None, "") and k not in ("name", "phone")]
    if "phone" in raw:
        fields["phone"] = phones.check(raw["phone"])  # a student's phone cannot be cleared
    if "name" in raw and not raw["name"]:
        raise BadRequest("Name cannot be empty")
    fields["updated_at"] = clock.now_iso()
    return accounts.public_user(users.update_user(p.user_id, fields, remove))


def upload_avatar(p, body: bytes, content_type: str | None) -> str:
    from lambdakit import multipart  # lazily: the avatar routes only (cold start of the profile reads)

    limit = settings().avatar_max_bytes
    form = multipart.parse(body, content_type, max_bytes=limit + 64 * 1024)
    f = form.files.get("file")
    if f is None or not f.data:
        raise BadRequest("Field 'file' with an image is required")
    if len(f.data) > limit:
        raise ApiError(f"Image exceeds {size_text(limit)}", code="PAYLOAD_TOO_LARGE", status=413)
    mime = multipart.sniff_image(f.data)
    if mime is None:
        raise BadRequest("File must be a JPEG, PNG or WebP image")
    version = random_token(9)
    key = f"avatars/{p.user_id}/{version}.{EXT[mime]}"
    # issue 23 rule 4: the object first (an S3 failure is a 503/500 and the user keeps the old
    # avatar), then the user item; if that write fails the new object, under a random key no item
    # names, is deleted (best effort: left behind it is unreachable and harmless)
    repo.put_avatar(key, f.data, mime)
    url = settings().public_base_url.rstrip("/") + f"/api/avatars/{p.user_id}?v={version}"
    try:
        old = users.get_user(p.user_id) or {}
        users.update_user(p.user_id, {"avatar_url": url, "avatar_key": key, "updated_at": clock.now_iso()})
    except Exception:
        if _avatar_key_is_not(p.user_id, key):
            repo.delete_quietly(key)
        raise
    if old.get("avatar_key") and old["avatar_key"] != key and not repo.delete_quietly(old["avatar_key"]):
        logger.warning("could not delete the previous avatar")  # an orphaned object is harmless
    return url


def _avatar_key_is_not(user_id: str, key: str) -> bool:
    """After a failed user write: does the user item surely NOT name ``key`` (read back; a write
    whose answer was lost may have landed)? ``False`` when that read fails too."""
    try:
        return (users.get_user(user_id, consistent=True) or {}).get("avatar_key") != key
    except Exception:  # noqa: BLE001 - the caller re-raises the write's own failure
        return False


def size_text(n: int) -> str:
    """``4 MB (4,194,304 bytes)``: the limit as the 413 and the docs state it (MB = 2**20 bytes)."""
    return f"{n / 2**20:g} MB ({n:,} bytes)"


def avatar_redirect(user_id: str) -> str:
    u = users.get_user(user_id) if user_id and len(user_id) <= 64 else None
    if not u or not u.get("avatar_key"):
        raise NotFound("Avatar not found")
    return repo.presigned_get(u["avatar_key"])


# ---------------------------------------------------------------- proxy
def allowed_hosts() -> set[str]:
    return {h.strip().lower() for h in settings().avatar_proxy_hosts.split(",") if h.strip()}


def check_proxy_url(url: str | None) -> str:
    from lambdakit import ssrf  # lazily: the proxy route only

    if not url or len(url) > 2048:
        raise BadRequest("url is required")
    try:
        parts = urlsplit(url)
    except ValueError:
        raise BadRequest("Invalid url") from None
    if parts.scheme != "https" or (parts.hostname or "").lower() not in allowed_hosts():
        raise BadRequest("Only images from allowed avatar hosts can be proxied")
    try:
        ssrf.check_url(url, resolve=False)  # resolved (once) and checked again by ssrf.fetch
    except ssrf.UnsafeUrl as exc:
        raise BadRequest(f"URL refused: {exc}") from None
    return url


def proxy_image(url: str | None) -> tuple[bytes, str]:
    """Fetch an allow-listed avatar through ``lambdakit.ssrf.fetch``: pinned to the address the
    SSRF check approved (no second DNS resolution), no redirects followed."""
    from lambdakit import multipart, ssrf

    url = check_proxy_url(url)
    try:
        resp = ssrf.fetch(url, headers={"User-Agent": "internships-avatar-proxy/1.0", "Accept": "image/*"},
                          timeout=5, max_bytes=settings().avatar_max_bytes)
    except ssrf.UnsafeUrl as exc:
        raise BadRequest(f"URL refused: {exc}") from None
    except ssrf.ResponseTooLarge:
        raise ApiError("Upstream image too large", code="BAD_GATEWAY", status=502) from None
    except (OSError, http.client.HTTPException):
        raise ApiError("Upstream image unavailable", code="BAD_GATEWAY", status=502) from None
    if resp.status != 200:
        raise ApiError("Upstream image unavailable", code="BAD_GATEWAY", status=502)
    data = resp.body
    mime = multipart.sniff_image(data)
    if mime is None:
        raise ApiError("Upstream did not return an image", code="BAD_GATEWAY", status=502)
    return data, mime
