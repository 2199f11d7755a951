"""Daily re-engagement and deadline reminder emails (scheduled jobs).

* deadline-reminders: for every active enrollment whose end date (``activated_at`` + duration
  months, 30 days each) is within ``deadline_reminder_days`` days and not past, queue a
  ``deadline_reminder``; dedupe key ``deadline:<enrollment>:<UTC day>``.
* inactive-students: for every active enrollment with no activity (activation or a milestone
  submission) for ``inactive_after_days`` days, queue one ``inactive_student`` per student;
  dedupe key ``inactive:<user>:<UTC day>`` (at most one per student per day; with the default
  14-day threshold a student keeps getting it only while inactive, once per daily run).
"""
from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable

from lambdakit import clock

from .. import people
from ..mail.outbox import enqueue_ex
from ..settings import settings

logger = logging.getLogger("internships.reminders")

More = Callable[[], bool]


def _always() -> bool:
    return True


def end_date(e: dict) -> dt.datetime | None:
    start = e.get("activated_at") or e.get("paid_at")
    if not start:
        return None
    try:
        return clock.parse_iso(start) + dt.timedelta(days=30 * int(e.get("duration") or 1))
    except (ValueError, TypeError):
        return None


def _queue(template: str, to: str | None, data: dict, key: str, user_id: str | None) -> bool | None:
    """True queued, False duplicate (skipped), None unusable."""
    if not to:
        return None
    try:
        return enqueue_ex(template, to, data, dedupe_key=key, user_id=user_id)[1]
    except Exception:  # noqa: BLE001
        logger.warning("could not queue %s", template)
        return None


def deadline_reminders() -> dict:
    return deadline_reminders_from("")[0]


def deadline_reminders_from(after: str, more: More = _always) -> tuple[dict, str | None]:
    """The reminders of the enrollments after the cursor while ``more()``: ``(counts, cursor to
    resume from, or None when done)``. Idempotent per enrollment and day (the dedupe key)."""
    now = clock.now()
    day = clock.today()
    horizon = now + dt.timedelta(days=settings().deadline_reminder_days)
    sent = skipped = 0
    last = after
    for e in people.active_enrollments_after(after):
        if not more():
            return {"sent": sent, "skipped": skipped}, last
        last = str(e.get("gsi3sk") or "")
        end = end_date(e)
        if not end or end < now or end > horizon:
            continue
        days_left = max(0, (end.date() - now.date()).days)
        r = _queue("deadline_reminder", e.get("student_email"),
                   {"name": e.get("student_name"), "domainName": e.get("domain_name"),
                    "deadline": end.strftime("%Y-%m-%d"), "daysLeft": days_left, "enrollmentId": e["id"]},
                   f"deadline:{e['id']}:{day}", e.get("user_id"))
        if r:
            sent += 1
        elif r is False:
            skipped += 1
    return {"sent": sent, "skipped": skipped}, None


def _last_activity(e: dict) -> str:
    last = e.get("activated_at") or e.get("created_at") or ""
    for m in people.milestones_of_enrollment(e["id"]):
        if (m.get("submitted_at") or "") > last:
            last = m["submitted_at"]
    return last


def inactive_students() -> dict:
    return inactive_students_from("")[0]


def inactive_students_from(after: str, more: More = _always) -> tuple[dict, str | None]:
    """As ``deadline_reminders_from``; a student with two enrollments in two runs is queued once (the
    dedupe key) and counted skipped the second time."""
    s = settings()
    day = clock.today()
    cutoff = clock.iso(clock.now() - dt.timedelta(days=s.inactive_after_days))
    sent = skipped = 0
    seen: set[str] = set()
    last = after
    for e in people.active_enrollments_after(after):
        if not more():
            return {"sent": sent, "skipped": skipped}, last
        last = str(e.get("gsi3sk") or "")
        uid = e.get("user_id")
        if not uid or uid in seen:
            continue
        last = _last_activity(e)
        if not last or last > cutoff:
            continue
        seen.add(uid)
        days = (clock.now() - clock.parse_iso(last)).days
        r = _queue("inactive_student", e.get("student_email"),
                   {"name": e.get("student_name"), "days": days, "domainName": e.get("domain_name")},
                   f"inactive:{uid}:{day}", uid)
        if r:
            sent += 1
        elif r is False:
            skipped += 1
    return {"sent": sent, "skipped": skipped}, None
