"""Proctoring: scored events, 30 s de-duplication, atomic risk accumulation, auto-submit at
the threshold (exactly once), evidence images in S3 behind 15-minute presigned URLs."""
from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

from lambdakit import clock, ids
from lambdakit.errors import ApiError, ValidationFailed
from lambdakit.observability import count

from ..attempts import access as attempts
from ..identity import Principal
from ..settings import settings
from . import repository as repo
from .rules import EXTENSIONS, RULES


def _decode_evidence(raw: str) -> tuple[bytes, str]:
    s = settings()
    data = raw.strip()
    if data.startswith("data:"):
        data = data.partition(",")[2]
    if len(data) > (s.evidence_max_bytes * 4) // 3 + 8:
        raise ValidationFailed(f"evidence is larger than {s.evidence_max_bytes} bytes",
                               fields={"evidence": "Image too large"})
    try:
        blob = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ValidationFailed("evidence must be a base64 image", fields={"evidence": "Invalid base64"}) from None
    if len(blob) > s.evidence_max_bytes:
        raise ValidationFailed(f"evidence is larger than {s.evidence_max_bytes} bytes",
                               fields={"evidence": "Image too large"})
    from lambdakit.multipart import sniff_image  # only an event with evidence

    mime = sniff_image(blob)
    if not mime:
        raise ValidationFailed("evidence must be a JPEG, PNG or WebP image", fields={"evidence": "Unsupported image"})
    return blob, mime


def _check_feature(a: dict, feature: str) -> None:
    from ..billing.guards import entitlement_for
    from ..papers import repository as trepo

    t = trepo.get(a["test_id"]) or {}
    pkg = t.get("package_id") if t.get("billing_source") == "package" else None
    ent = entitlement_for(a["client_id"], pkg)
    if feature not in ent.features:
        raise ApiError(f"Proctoring is not enabled for this test (needs {feature})", code="PROCTORING_NOT_ENABLED",
                       status=400, details={"feature": feature, "billing_source": ent.source})


def _not_in_progress(a: dict) -> ApiError:
    return ApiError("Proctoring events are accepted only while the attempt is in progress", code="STATE_CONFLICT",
                    status=409, details={"expected_state": "in_progress", "actual_state": a.get("status"),
                                         "reason": "attempt_not_in_progress"})


def _ensure_in_progress(a: dict) -> None:
    """Events after submission are refused. An attempt past its deadline plus the grace period is
    submitted now with its saved answers (the "next touch" rule) and the event is refused."""
    if a["status"] == "in_progress" and clock.now_ts() > float(a["deadline_ts"]) + settings().answer_grace_seconds:
        from ..attempts.submission import auto_submit  # grading: only a write that submits

        auto_submit(a["id"], "deadline")
        a = attempts.load(a["id"])
    if a["status"] != "in_progress":
        raise _not_in_progress(a)


def record_event(p: Principal | None, token: str | None, body: dict[str, Any]) -> tuple[dict, bool]:
    """Returns (response data, created)."""
    et = str(body["event_type"]).strip().upper()
    rule = RULES.get(et)
    if not rule:
        raise ValidationFailed(f"event_type must be one of {', '.join(RULES)}", fields={"event_type": "Unknown"})
    a = attempts.load(body["attempt_id"])
    attempts.authorize(p, a, token, write=True)
    _ensure_in_progress(a)
    if body.get("test_id") and body["test_id"] != a["test_id"]:
        raise ValidationFailed("test_id does not match the attempt", fields={"test_id": "Mismatch"})
    _check_feature(a, rule.feature)
    evidence = body.get("evidence")
    if rule.evidence_required and not evidence:
        raise ValidationFailed(f"evidence is required for {et}", fields={"evidence": "Required"})
    blob_mime = _decode_evidence(evidence) if evidence else None
    s = settings()
    now = clock.now_ts()
    event_id = ids.new_id()
    ev = {"id": event_id, "attempt_id": a["id"], "test_id": a["test_id"], "client_id": a["client_id"],
          "event_type": et, "severity": rule.severity, "score": rule.score, "created_at": clock.now_iso(), "ts": now,
          "student_id": a.get("student_id")}
    if body.get("metadata"):
        ev["metadata"] = json.dumps(body["metadata"], separators=(",", ":"), default=str)[:2000]
    evidence_url = None
    if blob_mime:
        # issue 23 rule 4: the link is made and the object stored BEFORE the event is recorded; an
        # S3 failure (503 FILE_STORE_UNAVAILABLE / 500 FILE_STORE_ERROR) leaves no event, no risk
        ev["evidence_key"] = f"evidence/{a['client_id']}/{a['id']}/{event_id}.{EXTENSIONS[blob_mime[1]]}"
        ev["evidence_type"] = blob_mime[1]
        evidence_url = repo.evidence_url(ev["evidence_key"])
        repo.put_evidence(ev["evidence_key"], blob_mime[0], blob_mime[1])
    try:
        repo.record(ev, attempt_id=a["id"], score=rule.score, dedup_cutoff=now - s.proctoring_dedup_seconds)
    except repo.NotInProgress:
        if ev.get("evidence_key"):
            repo.delete_evidence(ev["evidence_key"])
        raise _not_in_progress(attempts.load(a["id"])) from None
    except repo.Duplicate:
        if ev.get("evidence_key"):
            repo.delete_evidence(ev["evidence_key"])
        cur = attempts.load(a["id"])
        marker = repo.dedup_marker(a["id"], et) or {}
        return {"id": marker.get("event_id"), "attempt_id": a["id"], "test_id": a["test_id"], "event_type": et,
                "severity": rule.severity, "score": 0, "risk_score": int(cur.get("risk_score") or 0),
                "duplicate": True, "attempt_status": cur["status"]}, False
    except Exception:
        # the record failed: its object is orphaned unless the event was written after all
        if ev.get("evidence_key") and repo.event_absent(a["id"], ev):
            repo.delete_evidence(ev["evidence_key"])
        raise
    count("ProctoringEvents")
    cur = attempts.load(a["id"])
    risk = int(cur.get("risk_score") or 0)
    auto = False
    if risk >= s.risk_autosubmit_threshold and cur["status"] == "in_progress":
        from ..attempts.submission import auto_submit

        auto = auto_submit(a["id"], "proctoring")
        cur = attempts.load(a["id"])
    from ..audit.writer import record
    from ..stats import counters

    counters.bump(a["client_id"], proctoring_events=1)
    from ..attempts import repository as arepo

    arepo.bump_activity(clock.today(), a["client_id"], events=1)
    record("proctoring.event", "attempt", a["id"], user_id=a.get("student_id"), client_id=a["client_id"],
           metadata={"event_type": et, "severity": rule.severity, "risk_score": risk, "auto_submitted": auto})
    out = {"id": event_id, "attempt_id": a["id"], "test_id": a["test_id"], "event_type": et,
           "severity": rule.severity, "score": rule.score, "risk_score": risk, "duplicate": False,
           "attempt_status": cur["status"], "auto_submitted": auto, "created_at": ev["created_at"]}
    if evidence_url:
        out["evidence_url"] = evidence_url
        out["evidence_url_expires_in"] = s.evidence_url_ttl_seconds
    return out, True


def list_events(p: Principal | None, token: str | None, attempt_id: str | None, *, page: int, limit: int,
                cursor: str | None, have: Mapping[tuple[str, str], dict | None] | None = None
                ) -> tuple[list[dict], int, str | None]:
    """``have``: items read with authentication (``identity.reads``): the attempt when there
    (authorised below exactly as one read here)."""
    if not attempt_id:
        raise ValidationFailed("attempt_id is required", fields={"attempt_id": "Required"})
    a = attempts.load(attempt_id, have=have)
    attempts.authorize(p, a, token)
    items, nxt = repo.page(attempt_id, page=page, limit=limit, cursor=cursor)
    out = []
    for e in items:
        d = {k: e.get(k) for k in ("id", "attempt_id", "test_id", "event_type", "severity", "score", "created_at")}
        if e.get("evidence_key"):
            d["evidence_url"] = repo.evidence_url(e["evidence_key"])
            d["evidence_url_expires_in"] = settings().evidence_url_ttl_seconds
        out.append(d)
    return out, int(a.get("event_count") or 0), nxt
