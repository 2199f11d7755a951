"""Audit writer: every mutation and every authentication event the service sees.

``record(...)`` is called by domain services after a successful mutation;
``auth_event(...)`` by the authentication middleware. Rows follow the spec's audit row
(id, user_id, action, entity_type, entity_id, metadata as JSON text, created_at) and,
for authentication entries, also event_type, ip_address, success and timestamp.
Audit failures are logged and never fail the request that caused them.
"""
from __future__ import annotations

import json
from typing import Any

from lambdakit import clock, ids
from lambdakit.observability import get_logger

from ..settings import settings

logger = get_logger("exams")

_seen_logins: dict[str, None] = {}
_SEEN_MAX = 4096


def _ttl() -> int | None:
    days = settings().audit_retention_days
    return int(clock.now_ts()) + days * 86400 if days > 0 else None


def _row(*, action: str, entity_type: str, entity_id: str | None, user_id: str | None, metadata: Any,
         ip_address: str | None, client_id: str | None = None, **extra: Any) -> dict:
    now = clock.now_iso()
    row = {
        "id": ids.new_id(),
        "user_id": user_id,
        "client_id": client_id,
        "action": action,
        "entity_type": entity_type,
        "entity_id": entity_id,
        "metadata": json.dumps(metadata, default=str, separators=(",", ":")) if metadata is not None else None,
        "ip_address": ip_address,
        "created_at": now,
        **extra,
    }
    return row


def record(action: str, entity_type: str, entity_id: str | None, *, user_id: str | None,
           client_id: str | None = None, metadata: Any = None, ip_address: str | None = None) -> None:
    """One audit row for a mutation. ``metadata`` usually carries ``{before, after}``."""
    from . import context
    from . import repository as repo  # the rows' storage (sharded counters): only a write imports it

    ip_address = ip_address or context.current_ip()
    try:
        repo.put_row(_row(action=action, entity_type=entity_type, entity_id=entity_id, user_id=user_id,
                          client_id=client_id, metadata=metadata, ip_address=ip_address), _ttl())
    except Exception:  # noqa: BLE001 - the audit trail must not break the mutation that succeeded
        logger.exception("audit write failed", extra={"action": action})


def _login_key(user_id: str | None, auth_time: int | None) -> str | None:
    return f"AUTHSEEN#{user_id}#{auth_time}" if user_id and auth_time is not None else None


def _remember(dedup_key: str) -> None:
    if len(_seen_logins) >= _SEEN_MAX:
        _seen_logins.pop(next(iter(_seen_logins)))
    _seen_logins[dedup_key] = None


def login_marker(user_id: str | None, auth_time: int | None) -> tuple[str, str] | None:
    """Key of the sign-in's de-duplication marker while this process has not seen the sign-in's
    ``login`` entry written (``None`` otherwise): read with the profile (one BatchGetItem), a
    marker found means the entry exists and ``login_recorded`` spares the refused write."""
    key = _login_key(user_id, auth_time)
    if key is None or key in _seen_logins or len(key.encode("utf-8", "surrogatepass")) > 2048:
        return None  # 2048 bytes: DynamoDB's partition key limit (such a marker is never written)
    return key, "SEEN"


def login_recorded(user_id: str | None, auth_time: int | None) -> None:
    """The sign-in's marker exists (its ``login`` entry was written, by this or another process):
    ``auth_event("login", ...)`` writes nothing for it (the marker's condition would refuse it)."""
    key = _login_key(user_id, auth_time)
    if key is not None:
        _remember(key)


def auth_event(event_type: str, *, user_id: str | None, ip_address: str | None, success: bool,
               reason: str | None = None, auth_time: int | None = None) -> None:
    """Authentication audit entry. ``login`` entries are written once per (user, auth_time)."""
    dedup_key = None
    if event_type == "login":
        dedup_key = _login_key(user_id, auth_time)
        if dedup_key in _seen_logins:
            return
    now = clock.now_iso()
    row = _row(action=event_type, entity_type="auth", entity_id=user_id, user_id=user_id,
               metadata={"reason": reason, "auth_time": auth_time} if (reason or auth_time) else None,
               ip_address=ip_address, event_type=event_type, success=success, timestamp=now)
    from . import repository as repo

    try:
        repo.put_row(row, _ttl(), dedup_key=dedup_key,
                     dedup_ttl=(int(clock.now_ts()) + 31 * 86400) if dedup_key else None)
    except Exception:  # noqa: BLE001
        logger.exception("auth audit write failed")
        return
    if dedup_key:
        _remember(dedup_key)
