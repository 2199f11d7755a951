"""Activity log rules: what an entry holds, redaction, and the filtered admin list."""
from __future__ import annotations

import json
import logging
from typing import Any

from lambdakit import clock, ids

from . import repository as repo

logger = logging.getLogger("internships.activity")

MAX_SNAPSHOT_CHARS = 16_000
SECRET_KEYS = ("password", "password_hash", "passwordhash", "token", "secret", "refresh", "signature", "otp")
REDACTED = "[redacted]"


def _is_secret(key: str) -> bool:
    k = key.lower().replace("-", "_")
    return any(s in k for s in SECRET_KEYS) and not k.endswith(("_count", "_at"))


def sanitize(value: Any, _depth: int = 0) -> Any:
    """Copy of a before/after snapshot with secrets redacted and DynamoDB keys dropped."""
    if _depth > 8:
        return "[truncated]"
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            ks = str(k)
            if ks in ("pk", "sk", "ttl") or ks.startswith("gsi"):
                continue
            out[ks] = REDACTED if _is_secret(ks) and v not in (None, "") else sanitize(v, _depth + 1)
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        return [sanitize(v, _depth + 1) for v in (sorted(value) if isinstance(value, (set, frozenset)) else value)]
    return value


def _cap(snapshot: dict | None) -> dict | None:
    if snapshot is None:
        return None
    clean = sanitize(snapshot)
    text = json.dumps(clean, default=str)
    if len(text) <= MAX_SNAPSHOT_CHARS:
        return clean
    return {"_truncated": True, "_size": len(text), "keys": sorted(clean)[:200]}


def build_entry(admin_id: str, action_type: str, entity_type: str, entity_id: str, *,
                before: dict | None = None, after: dict | None = None) -> dict:
    if not admin_id or not action_type or not entity_type:
        raise ValueError("admin_id, action_type and entity_type are required")
    now = clock.now_iso()
    entry: dict[str, Any] = {"id": ids.sortable_id(), "admin_id": str(admin_id), "action_type": str(action_type),
             "entity_type": str(entity_type), "entity_id": str(entity_id or ""), "created_at": now}
    b, a = _cap(before), _cap(after)
    if b is not None:
        entry["before"] = b
    if a is not None:
        entry["after"] = a
    # lower-cased haystack for the list's ?search= (ids and types only; no personal data beyond ids)
    entry["search_text"] = " ".join([entry["action_type"], entry["entity_type"], entry["entity_id"],
                                     entry["admin_id"]]).lower()
    return entry


def entry_ops(admin_id: str, action_type: str, entity_type: str, entity_id: str, *,
              before: dict | None = None, after: dict | None = None) -> list[dict]:
    """The log entry and its counters as ``Table.transact`` operations."""
    return repo.entry_ops(build_entry(admin_id, action_type, entity_type, entity_id, before=before, after=after))


def record(admin_id: str, action_type: str, entity_type: str, entity_id: str, *,
           before: dict | None = None, after: dict | None = None) -> None:
    """Write one activity log entry (and its counters) atomically.

    Called after the change it records has been written: a failure here (throttling, a server
    error) is logged and does not turn that committed change into an error answer — the client
    would retry a change that already happened (issue 23; the exams audit trail does the same)."""
    try:
        repo.write(build_entry(admin_id, action_type, entity_type, entity_id, before=before, after=after))
    except Exception:  # noqa: BLE001 - the log must not fail the mutation that succeeded
        logger.exception("activity log write failed", extra={"action_type": action_type,
                                                             "entity_type": entity_type})


PUBLIC_FIELDS = ("id", "admin_id", "action_type", "entity_type", "entity_id", "before", "after", "created_at")


def list_logs(filters: dict, *, search: str | None, date_from: str | None, date_to: str | None, offset: int,
              limit: int, cursor: str | None) -> tuple[list[dict], int, bool, str | None]:
    """One page of entries, newest first, and the total.

    The total comes from the counter item when at most one of admin_id/entity_type/
    action_type filters and no search/date range; otherwise a bounded COUNT query."""
    from ..admin_common.dates import iso_bounds

    bounds = iso_bounds(date_from, date_to)
    dims = [d for d in ("admin_id", "entity_type", "action_type") if d in filters]
    items, nxt = repo.list_entries(filters, search=search, bounds=bounds, offset=offset, limit=limit, cursor=cursor)
    if len(dims) <= 1 and not search and not bounds:
        total, exact = repo.counter(dims[0] if dims else None, filters.get(dims[0]) if dims else None), True
    else:
        total, exact = repo.count_entries(filters, search=search, bounds=bounds)
    return [{k: i.get(k) for k in PUBLIC_FIELDS} for i in items], total, exact, nxt
