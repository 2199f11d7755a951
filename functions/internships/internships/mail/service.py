"""Email processing: claim, render, send, retry with backoff; admin queue operations; open tracking.

State machine of an email item:
``pending`` → (claim) ``sending`` → ``sent`` | ``pending`` (retry later, exponential backoff) | ``failed``
(after ``email_max_attempts``); ``pending`` → ``cancelled`` (admin); ``failed`` → ``pending`` (admin retry).
Each step is a conditional transaction, so concurrent workers, the SQS worker and the
``process-emails`` sweep never send one email twice. A ``sending`` claim holds a lease; an
expired lease (crashed worker) can be reclaimed.
"""
from __future__ import annotations

import datetime as dt
import logging

from lambdakit import clock, occupancy
from lambdakit.baseurl import BaseUrlNotSet
from lambdakit.errors import BadRequest, Conflict, FileStoreUnavailable, NotFound
from lambdakit.observability import count
from lambdakit.pagination import page_meta, page_request

from .. import links
from ..settings import settings
from . import repository as repo
from .delivery import PermanentFailure, deliver, provider_name
from .templates import ALL_KINDS, DEFAULTS, SAMPLES, render, wrap

logger = logging.getLogger("internships.mail")

STATUSES = ("pending", "sending", "sent", "failed", "cancelled")
#: the counters item the ``process-emails`` job reads with its markers (``sweep``'s ``totals``)
COUNTERS_KEY = repo.STATS_TOTAL
LEASE_SECONDS = 120
#: attempts at the sent transition after a delivery (``_mark_sent``)
SENT_ATTEMPTS = 3


def render_email(email: dict, read: tuple[dict | None, dict] | None = None) -> tuple[str, str]:
    """``read``: the template override and site settings already read (``repo.email_with_template``)."""
    kind = email["template"]
    if kind not in ALL_KINDS:
        raise PermanentFailure(f"unknown template {kind}")
    override, site = read if read is not None else repo.template_and_site(kind)  # one BatchGetItem
    tpl = override or DEFAULTS[kind]
    data = {"siteName": site.get("siteName") or "Internship Programme", **(email.get("data") or {})}
    # issue 33: links resolve or the mail is held (BaseUrlNotSet is transient: retried, never sent broken)
    data = links.absolute({"dashboardUrl": "/dashboard", **data})
    subject, body = render(tpl, data)
    pixel = f"{links.api_base()}/api/email/track?id={email['id']}"
    return subject, wrap(body, site_name=data["siteName"], pixel_url=pixel)


# ---------------------------------------------------------------- processing
def backoff_seconds(attempts: int) -> int:
    s = settings()
    return int(min(s.email_retry_max_seconds, s.email_retry_base_seconds * (2 ** max(0, attempts - 1))))


def _claim(email: dict) -> bool:
    now = clock.now_iso()
    lease = clock.iso(clock.now() + dt.timedelta(seconds=LEASE_SECONDS))
    if email["status"] == "pending":
        return repo.transition(email, "sending", expect="pending", set={"lease_until": lease},
                               extra_condition="#na <= :now", names={"#na": "next_attempt_at"},
                               values={":now": now})
    if email["status"] == "sending" and (email.get("lease_until") or "") < now:
        return repo.transition(email, "sending", expect="sending", set={"lease_until": lease},
                               extra_condition="#lu < :now", names={"#lu": "lease_until"}, values={":now": now})
    return False


def _claim_due(email: dict | None) -> dict | None:
    """``email`` when it is due (pending and due, or sending with an expired lease) and this call
    claimed it; else ``None``."""
    if not email or (email["status"] == "pending" and email.get("next_attempt_at", "") > clock.now_iso()):
        return None
    return email if _claim(email) else None


def process_email(email_id: str, listed: dict | None = None) -> str:
    """Process one email; returns the outcome: sent, retry, failed or skipped.

    ``listed``: the email as the sweep's index query returned it, claimed without a first read.
    The copy may be stale (the index is eventually consistent), which is safe: the claim's
    conditions (the status it names, the due time or the expired lease) are DynamoDB's to check on
    the item itself, and the counters it moves follow the status the condition pins. A claim
    refused on that copy reads the email and decides as without it (one read more, only then)."""
    email = _claim_due(listed if listed is not None else repo.get_email(email_id))
    if email is None and listed is not None:
        email = _claim_due(repo.get_email(email_id))
    if email is None:
        return "skipped"
    # the claimed email read back (a reclaimed one may carry an earlier claim's message id) with its
    # template and the site settings: one BatchGetItem
    parts: tuple[dict | None, dict] | None
    try:
        fresh, parts = repo.email_with_template(email_id, email["template"])
    except Exception:  # noqa: BLE001 - as without the joint read: the re-read's failure raises, the template's is retried
        fresh, parts = repo.get_email(email_id), None
    email = fresh or email
    if email.get("message_id"):
        # delivered by an earlier claim whose sent transition did not land: never delivered again
        _mark_sent(email, email["message_id"], email.get("subject") or "")
        return "sent"
    try:
        subject, html = render_email(email, parts)
        message_id = deliver(email, subject, html)
    except PermanentFailure as exc:
        _fail(email, str(exc))
        return "failed"
    except Exception as exc:  # noqa: BLE001 - provider errors are retried
        return _retry_later(email, exc)
    # issue 23 rule 4: the provider accepted it; record that first (a plain conditional update, no
    # transaction), so a reclaim after a lost sent transition finds the message id and does not send again
    _record_delivery(email, message_id, subject)
    _mark_sent(email, message_id, subject)
    count("EmailsSent")
    return "sent"


def _record_delivery(email: dict, message_id: str, subject: str) -> None:
    """Record the message id (retried); a failure that persists goes on to the sent transition,
    which records it too: the delivery is never lost to an error of this write."""
    for attempt in range(SENT_ATTEMPTS):
        try:
            repo.record_delivery(email["id"], message_id, subject)
            return
        except Exception:  # noqa: BLE001 - retried; the sent transition records the id as well
            logger.warning("could not record the delivery", extra={"email_id": email["id"], "attempt": attempt + 1})


def _mark_sent(email: dict, message_id: str, subject: str) -> None:
    """sending → sent, confirmed: a failed condition is read back (sent already: done; still
    sending: retried); an error after the retries is raised (the queue redelivers, the sweep
    reclaims, and the recorded message id keeps it from being delivered twice)."""
    upd = {"sent_at": clock.now_iso(), "message_id": message_id, "subject": subject,
           "attempts": int(email.get("attempts", 0)) + 1}
    for attempt in range(SENT_ATTEMPTS):
        try:
            if repo.transition(email, "sent", expect="sending", set=upd, remove=["lease_until", "last_error"]):
                return
        except Exception:  # noqa: BLE001 - retried; the last failure is raised
            if attempt == SENT_ATTEMPTS - 1:
                raise
            continue
        cur = repo.get_email(email["id"])
        if not cur or cur.get("status") != "sending":
            return  # sent (or changed by an admin) meanwhile: nothing left to record
    raise RuntimeError(f"email {email['id']} delivered but not marked sent; the sweep finishes it")


def _error_text(exc: Exception) -> str:
    code = getattr(exc, "response", {}).get("Error", {}).get("Code") if hasattr(exc, "response") else None
    if not code:  # a domain error that carries the AWS error code (lambdakit.s3 / ddb mappings)
        code = getattr(exc, "aws_code", None)
        code = f"{type(exc).__name__} ({code})" if code else None
    text = f"{code}: {exc}" if code else f"{type(exc).__name__}: {exc}"
    return text[:500]


def _fail(email: dict, reason: str) -> None:
    if repo.transition(email, "failed", expect="sending",
                       set={"last_error": reason[:500], "failed_at": clock.now_iso(),
                            "attempts": int(email.get("attempts", 0)) + 1},
                       remove=["lease_until"]):
        count("EmailsFailed")


#: Provider answers that say "busy, try later" (SES throttling, sending-rate limits, its 5xx): retried
#: with backoff without using the email's attempt budget, so a throttle never fails an email
#: (issue 23 rule 4). Anything else counts as an attempt.
TRANSIENT_CODES = frozenset({"Throttling", "ThrottlingException", "TooManyRequestsException", "LimitExceededException",
                             "ServiceUnavailable", "ServiceUnavailableException", "InternalFailure",
                             "InternalServerError", "RequestTimeout"})


def transient(exc: Exception) -> bool:
    if isinstance(exc, (FileStoreUnavailable, BaseUrlNotSet)):  # S3 busy (lambdakit.s3); links unresolvable yet
        return True
    response = getattr(exc, "response", None)
    if not isinstance(response, dict):
        return False
    code = (response.get("Error") or {}).get("Code", "")
    status = int((response.get("ResponseMetadata") or {}).get("HTTPStatusCode") or 0)
    return code in TRANSIENT_CODES or status >= 500


def _retry_later(email: dict, exc: Exception) -> str:
    busy = transient(exc)
    attempts = int(email.get("attempts", 0)) + (0 if busy else 1)
    throttles = int(email.get("throttles", 0)) + (1 if busy else 0)
    reason = _error_text(exc)
    logger.warning("email send failed", extra={"email_id": email["id"], "attempt": attempts, "transient": busy})
    if not busy and attempts >= settings().email_max_attempts:
        if repo.transition(email, "failed", expect="sending",
                           set={"last_error": reason, "failed_at": clock.now_iso(), "attempts": attempts},
                           remove=["lease_until"]):
            count("EmailsFailed")
        return "failed"
    delay = backoff_seconds(throttles if busy else attempts)
    nxt = clock.iso(clock.now() + dt.timedelta(seconds=delay))
    if repo.transition(email, "pending", expect="sending",
                       set={"last_error": reason, "attempts": attempts, "throttles": throttles, "next_attempt_at": nxt},
                       remove=["lease_until"]):
        count("EmailsRetried")
    try:
        repo.send_work(email["id"], delay)
    except Exception:  # noqa: BLE001 - the sweep will find it
        logger.warning("could not requeue email", extra={"email_id": email["id"]})
    return "retry"


def counted_statuses(totals: dict) -> set[str]:
    """The statuses holding at least one email, from the counters item (``repo.STATS_TOTAL``)."""
    out: set[str] = set()
    for k, v in totals.items():
        if not k.startswith("c_"):
            continue
        try:
            n = int(v)
        except (TypeError, ValueError):
            continue
        if n > 0:
            out.add(k[2:].partition("_")[0])
    return out


def sweep(limit: int | None = None, totals: dict | None = None, *, full: bool = True, queued: int = 0) -> dict:
    """Process due pending emails and reclaim expired leases (the ``process-emails`` job).

    ``totals``: the counters item (``repo.STATS_TOTAL``, read consistently by the caller; ``{}``
    when absent). Its ``c_<status>_<template>`` counters move in the transaction of every status
    change, so a status they count no email in has none, and its index partition is not queried
    (an idle run queries nothing). ``full``: query both partitions anyway (the daily net, or the
    counters could not be read); work found where the counters said none is reported as a missed
    occupancy marker (``lambdakit.occupancy.missed``: WARNING and ``OccupancyMarkerMissed``).
    ``queued``: emails the caller queued after reading ``totals`` (pending, not counted there)."""
    limit = limit or settings().email_sweep_limit
    counts = {"sent": 0, "failed": 0, "retry": 0, "skipped": 0}
    counted = counted_statuses(totals) if totals is not None else {"pending", "sending"}
    if queued:
        counted.add("pending")
    full = full or totals is None
    now = clock.now_iso()
    candidates: list[dict] = []
    if full or "pending" in counted:
        due = repo.due_pending(now, limit)
        _missed("pending", counted, len(due))
        candidates += due
    if full or "sending" in counted:
        stale = [e for e in repo.stale_sending(50) if (e.get("lease_until") or "") < now]
        _missed("sending", counted, len(stale))
        candidates += stale
    for email in candidates:
        counts[process_email(email["id"], email)] += 1
    return counts


def _missed(status: str, counted: set[str], n: int) -> None:
    if n and status not in counted:
        occupancy.missed((repo.STATS_PK, f"TOTAL#{status}"), n)


# ---------------------------------------------------------------- admin operations
def _must_get(email_id: str) -> dict:
    if not isinstance(email_id, str) or not email_id.strip():
        raise BadRequest("emailId is required")
    email = repo.get_email(email_id.strip())
    if not email:
        raise NotFound("Email not found")
    return email


def retry(email_id: str) -> dict:
    email = _must_get(email_id)
    if email["status"] != "failed":
        raise Conflict(f"Only failed emails can be retried (status is {email['status']})")
    ok = repo.transition(email, "pending", expect="failed",
                         set={"attempts": 0, "next_attempt_at": clock.now_iso()}, remove=["failed_at"])
    if not ok:
        raise Conflict("Email changed meanwhile; reload and try again")
    count("EmailsRetried")
    try:
        repo.send_work(email["id"])
    except Exception:  # noqa: BLE001
        logger.warning("email queue unavailable on retry", extra={"email_id": email["id"]})
    return present(repo.get_email(email["id"]) or email)


def cancel(email_id: str) -> dict:
    email = _must_get(email_id)
    if email["status"] != "pending":
        raise Conflict(f"Only pending emails can be cancelled (status is {email['status']})")
    if not repo.transition(email, "cancelled", expect="pending", set={"cancelled_at": clock.now_iso()}):
        raise Conflict("Email changed meanwhile; reload and try again")
    return present(repo.get_email(email["id"]) or email)


def present(e: dict) -> dict:
    return {
        "id": e["id"], "templateType": e["template"], "to": e["to"], "status": e["status"],
        "subject": e.get("subject"), "attempts": int(e.get("attempts", 0)), "lastError": e.get("last_error"),
        "createdAt": e["created_at"], "updatedAt": e.get("updated_at"), "sentAt": e.get("sent_at"),
        "nextAttemptAt": e.get("next_attempt_at") if e["status"] == "pending" else None,
        "openedAt": e.get("opened_at"), "openCount": int(e.get("open_count", 0)), "userId": e.get("user_id"),
    }


def _day(value: str | None, name: str) -> str | None:
    if not value:
        return None
    try:
        return clock.parse_iso(value).strftime("%Y-%m-%d")
    except ValueError:
        raise BadRequest(f"{name} must be an ISO 8601 date") from None


def _sum(items: list[dict], prefix: str, *, status: str | None = None, template: str | None = None) -> int:
    total = 0
    for it in items:
        for k, v in it.items():
            if not k.startswith(prefix):
                continue
            _, st, tpl = k.split("_", 2) if prefix == "c_" else ("o", None, k[2:])
            if status and st != status:
                continue
            if template and tpl != template:
                continue
            total += int(v)
    return total


def list_queue(*, status: str | None, template: str | None, start_date: str | None, end_date: str | None,
               page: str | None, limit: str | None) -> dict:
    if status and status not in STATUSES:
        raise BadRequest(f"status must be one of {', '.join(STATUSES)}")
    if template and template not in ALL_KINDS:
        raise BadRequest("templateType is not a known template")
    req = page_request(page, limit)
    start, end = _day(start_date, "startDate"), _day(end_date, "endDate")
    if start and end and start > end:
        raise BadRequest("startDate must not be after endDate")
    # Totals from counters (no counting scans)
    if start or end:
        rows = repo.stats_days(start or "0000-00-00", end or "9999-12-31")
    else:
        rows = [repo.stats_total()]
    total = _sum(rows, "c_", status=status, template=template)
    page_items = repo.list_emails(status=status, template=template, start=start, end=end,
                                  offset=req.offset, limit=req.limit)
    return {"success": True, "emails": [present(e) for e in page_items], **page_meta(req, total)}


def stats() -> dict:
    total_row = repo.stats_total()
    by_status = {s: _sum([total_row], "c_", status=s) for s in STATUSES}
    by_template = {}
    for kind in ALL_KINDS:
        n = _sum([total_row], "c_", template=kind)
        if n:
            by_template[kind] = {"total": n, "sent": _sum([total_row], "c_", status="sent", template=kind),
                                 "failed": _sum([total_row], "c_", status="failed", template=kind),
                                 "opened": int(total_row.get(f"o_{kind}", 0))}
    opened = _sum([total_row], "o_")
    today = clock.now()
    first = (today - dt.timedelta(days=6)).strftime("%Y-%m-%d")
    days = {r["sk"][4:]: r for r in repo.stats_days(first, today.strftime("%Y-%m-%d"))}
    series = []
    for i in range(6, -1, -1):
        d = (today - dt.timedelta(days=i)).strftime("%Y-%m-%d")
        row = days.get(d, {})
        series.append({"date": d, "queued": _sum([row], "c_"), "sent": _sum([row], "c_", status="sent"),
                       "failed": _sum([row], "c_", status="failed"), "opened": _sum([row], "o_")})
    total = sum(by_status.values())
    sent = by_status["sent"]
    return {"success": True, "provider": provider_name(), "total": total, **by_status, "opened": opened,
            "deliveryRate": round(100.0 * sent / total, 2) if total else 0.0,
            "openRate": round(100.0 * opened / sent, 2) if sent else 0.0,
            "byTemplate": by_template, "last7Days": series}


def send_test(template: str, to: str) -> dict:
    from .outbox import enqueue

    if template not in ALL_KINDS:
        raise BadRequest(f"template must be one of {', '.join(ALL_KINDS[:12])}")
    data = {**SAMPLES.get(template, {}), "test": True}
    email_id = enqueue(template, to, data)
    return {"success": True, "emailId": email_id, "template": template, "to": to,
            "message": f"Test {template} email queued for {to}"}


# ---------------------------------------------------------------- tracking
def track_open(email_id: str | None) -> bool:
    """Record the first open of a known email; unknown or malformed ids are ignored."""
    if not email_id or len(email_id) > 64 or not email_id.isalnum():
        return False
    return repo.record_open(email_id, clock.now_iso()) is not None
