"""Proctoring items (in the attempt's partition, outside the ``A#`` prefix the submit query reads).

``ATTEMPT#<id> / P#DEDUP#<event_type>`` — last accepted event of a type (30 s de-duplication
by conditional write); ``ATTEMPT#<id> / P#EV#<created_at>#<event_id>`` — one recorded event.
The attempt's ``risk_score`` and ``event_count`` are ADDed in the same transaction.
Evidence objects: ``s3://<evidence bucket>/evidence/<client>/<attempt>/<event>.<ext>`` (SSE-S3).
"""
from __future__ import annotations

from typing import Any

from lambdakit.errors import ConditionFailed, Contention

from ..settings import settings
from ..store import page_query, strip_keys, table


class Duplicate(Exception):
    pass


class NotInProgress(Exception):
    """The attempt was submitted (or removed) before the event could be recorded."""


def record(event: dict, *, attempt_id: str, score: int, dedup_cutoff: float) -> None:
    """Dedup marker + event + risk accumulation in one transaction, conditional on the attempt
    being in progress (``NotInProgress`` otherwise: nothing is recorded after submission).
    ``Duplicate`` when an event of the same type was accepted within the window; transaction
    conflicts are retried."""
    ops: list[dict[str, Any]] = [
        {"put": {"pk": f"ATTEMPT#{attempt_id}", "sk": f"P#DEDUP#{event['event_type']}", "last_ts": event["ts"],
                 "event_id": event["id"]},
         "condition": "attribute_not_exists(pk) OR last_ts <= :cut", "values": {":cut": dedup_cutoff}},
        {"put": {**event, "pk": f"ATTEMPT#{attempt_id}", "sk": f"P#EV#{event['created_at']}#{event['id']}"}},
        {"update": (f"ATTEMPT#{attempt_id}", "A#META"), "add": {"risk_score": score, "event_count": 1},
         "condition": "attribute_exists(pk) AND #st = :ip", "names": {"#st": "status"},
         "values": {":ip": "in_progress"}},
    ]
    for _try in range(2):
        try:  # contention (TransactionConflict) is retried inside Table.transact
            table().transact(ops)
            return
        except ConditionFailed as exc:
            if len(exc.reasons) > 2 and exc.reasons[2] == "ConditionalCheckFailed":
                raise NotInProgress() from None
            if not (exc.reasons and exc.reasons[0] == "ConditionalCheckFailed"):
                raise
            # rule 2 of issue 23: a duplicate only when the marker read back says so
            marker = dedup_marker(attempt_id, event["event_type"])
            if marker and float(marker.get("last_ts", 0)) > dedup_cutoff:
                raise Duplicate() from None
    raise Contention("The event could not be recorded, please retry", reasons=["ConditionUnconfirmed"])


def event_absent(attempt_id: str, event: dict) -> bool:
    """Is the event surely NOT recorded (read back after a failed ``record``)? ``False`` when the
    read fails too: its evidence object then stays for the bucket's lifecycle rule."""
    try:
        return table().get(f"ATTEMPT#{attempt_id}", f"P#EV#{event['created_at']}#{event['id']}",
                           consistent=True) is None
    except Exception:  # noqa: BLE001 - the caller re-raises the record's own failure
        return False


def dedup_marker(attempt_id: str, event_type: str) -> dict | None:
    return table().get(f"ATTEMPT#{attempt_id}", f"P#DEDUP#{event_type}", consistent=True)


def page(attempt_id: str, *, page: int, limit: int, cursor: str | None):
    items, nxt = page_query(f"ATTEMPT#{attempt_id}", sk_prefix="P#EV#", page=page, limit=limit, cursor=cursor,
                            forward=False)
    return [strip_keys(i) for i in items], nxt


def put_evidence(key: str, data: bytes, content_type: str) -> None:
    """Store an evidence image; S3 failures are ``lambdakit.s3``'s domain errors (503/500)."""
    from lambdakit import s3  # S3: only the evidence paths (a list without evidence never signs)

    s3.put(settings().evidence_bucket, key, data, content_type=content_type)


def delete_evidence(key: str) -> None:
    """Best effort: the object of an event that was not recorded (the ``evidence/`` lifecycle
    rule expires whatever stays behind)."""
    from lambdakit import s3

    s3.delete_quietly(settings().evidence_bucket, key)


def evidence_url(key: str) -> str:
    from lambdakit import s3

    return s3.presign_url("get_object", settings().evidence_bucket, key, settings().evidence_url_ttl_seconds)
