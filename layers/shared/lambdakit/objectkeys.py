"""Object keys a client names (issue 32 item 4): the one validator every route uses.

A client that sends an S3 key (``file_key``, ``s3_key``, ``object_key``...) must not be able to make
the service store, sign or serve an object outside what it may reference. Two checks, both here:

1. **Shape** (``check_shape``): the expected prefix; ``/``-separated segments that are neither empty,
   ``.`` nor ``..``; no ``%`` at all (so no percent-encoded dots or slashes, ``%2e%2e``, ``%2f``); no
   backslash; no control or format character (C0, DEL, C1, Unicode ``Cc``/``Cf``); at most 1,024
   UTF-8 bytes (S3's limit). S3 itself does not normalise ``..``, but a key signed here ends up in URLs,
   CDNs, downloads and other tools that do.
2. **Provenance** (``issue`` / ``require_issued``): the key must be one this service issued to the
   caller for that purpose (the sign or upload route writes an ``OBJKEY#<key>`` item with
   ``purpose``, ``owner`` and a TTL), or one the record already holds. A well-formed key of another
   prefix, another caller or a guessed name is refused.

Refusals are ``ValidationFailed`` on the named field: each service renders them in its own error
shape (4xx, never a 500). Routes that take object *ids* (campaigns ``attachment_id``) resolve keys
server-side and do not need this module.
"""
from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Any

from . import clock
from .errors import ValidationFailed

if TYPE_CHECKING:
    from .ddb import Table

MAX_KEY_BYTES = 1024
#: How long an issued key may be referenced before it must be issued again.
DEFAULT_ISSUE_TTL_SECONDS = 7 * 24 * 3600


def _bad(field: str, why: str) -> ValidationFailed:
    return ValidationFailed(f"{field} is not an acceptable object key: {why}", fields={field: why})


def check_shape(value: Any, *, prefix: str, field: str = "file_key") -> str:
    """``value`` if it is a safe key under ``prefix`` (which ends with ``/``), else ``ValidationFailed``."""
    if not isinstance(value, str) or not value:
        raise _bad(field, "must be a non-empty string")
    if len(value.encode("utf-8")) > MAX_KEY_BYTES:
        raise _bad(field, f"must be at most {MAX_KEY_BYTES} bytes")
    if not prefix.endswith("/") or not value.startswith(prefix):
        raise _bad(field, f"must start with {prefix}")
    if "%" in value:
        raise _bad(field, "must not contain percent-encoding")
    if "\\" in value:
        raise _bad(field, "must not contain a backslash")
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in value):
        raise _bad(field, "must not contain control characters")
    segments = value.split("/")
    if any(s in ("", ".", "..") for s in segments):
        raise _bad(field, "must not contain empty, . or .. path segments")
    return value


def key_type(prefix: str, field: str = "file_key") -> Any:
    """A pydantic field type running ``check_shape`` (the model layer's half of the rule)."""
    from typing import Annotated

    from pydantic import AfterValidator

    def _check(v: str) -> str:
        try:
            return check_shape(v, prefix=prefix, field=field)
        except ValidationFailed as exc:
            raise ValueError(exc.fields[field]) from None

    return Annotated[str, AfterValidator(_check)]


def _item_key(key: str) -> tuple[str, str]:
    return f"OBJKEY#{key}", "ISSUED"


def issue(table: Table, key: str, *, purpose: str, owner: str,
          ttl_seconds: int = DEFAULT_ISSUE_TTL_SECONDS) -> None:
    """Record that ``key`` was issued to ``owner`` for ``purpose`` (the sign/upload route calls this
    before handing the key out). Keys are minted server-side, so a plain put is enough."""
    pk, sk = _item_key(key)
    now = clock.now_ts()
    table.put({"pk": pk, "sk": sk, "purpose": purpose, "owner": owner, "issued_at": clock.now_iso(),
               "ttl": int(now) + int(ttl_seconds)})


def require_issued(table: Table, value: Any, *, prefix: str, purpose: str, owner: str,
                   field: str = "file_key", current: str | None = None) -> str:
    """The checked key: well-formed under ``prefix`` and either ``current`` (what the record already
    references) or issued to ``owner`` for ``purpose`` and not expired."""
    key = check_shape(value, prefix=prefix, field=field)
    if current is not None and key == current:
        return key
    pk, sk = _item_key(key)
    item = table.get(pk, sk, consistent=True)
    if (not item or item.get("purpose") != purpose or item.get("owner") != owner
            or int(item.get("ttl") or 0) < clock.now_ts()):
        raise _bad(field, "was not issued to you by the upload or sign route")
    return key
