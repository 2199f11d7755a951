"""The in-app notification feed (at most 20 items, newest first).

Built at read time from three sources, all bounded per user:
* unread announcements visible to the user (``announcements.service``);
* the user's enrollments (JOURNEY items): one entry per reached status (pending, active,
  completed, cancelled) with its timestamp;
* the user's milestones that were reviewed (approved → ``reviewed``) or rejected.

Enrollment and milestone entries have stable ids (``enrollment:<id>:<status>``,
``milestone:<id>:<status>:<reviewed_at>``) and can be marked read with
``POST /api/notifications {notificationId}``; ``{announcementId}`` marks an announcement read.

A mark is written only for an entry of the caller's own feed sources (issue 32 item 10): the id must
be one the caller's enrollments and milestones produce right now (404 otherwise), and a user holds at
most ``notification_marks_per_user`` marks (a counter item, conditional update; 409 past it).
"""
from __future__ import annotations

from lambdakit.errors import BadRequest, NotFound

from .. import people
from ..announcements import service as announcements
from ..settings import settings
from . import repository as repo

MAX_ITEMS = 20

_ENROLL_TEXT = {
    "pending": ("Enrollment created", "Your enrollment in {d} is awaiting payment.", "created_at"),
    "active": ("Enrollment active", "Your enrollment in {d} is now active.", "activated_at"),
    "completed": ("Internship completed", "You completed {d}. Your certificate is ready.", "completed_at"),
    "cancelled": ("Enrollment cancelled", "Your enrollment in {d} was cancelled.", "cancelled_at"),
}


def _enrollment_events(enrollments: list[dict]) -> list[dict]:
    out = []
    for e in enrollments:
        st = e.get("status")
        if st not in _ENROLL_TEXT:
            continue
        title, body, ts_field = _ENROLL_TEXT[st]
        when = e.get(ts_field) or e.get("updated_at") or e.get("created_at")
        if not when:
            continue
        out.append({"id": f"enrollment:{e['id']}:{st}", "type": "enrollment", "title": title,
                    "message": body.format(d=e.get("domain_name") or "your domain"), "createdAt": when,
                    "ref": {"enrollmentId": e["id"], "status": st}})
    return out


def _milestone_events(milestones: list[dict]) -> list[dict]:
    out = []
    for m in milestones:
        st = m.get("status")
        if st not in ("reviewed", "rejected") or not m.get("reviewed_at"):
            continue
        approved = st == "reviewed"
        out.append({"id": f"milestone:{m['id']}:{st}:{m['reviewed_at']}", "type": "milestone",
                    "title": "Milestone approved" if approved else "Milestone needs changes",
                    "message": f"{m.get('title') or 'Your milestone'}: "
                               + (m.get("remarks") or ("approved" if approved else "please resubmit")),
                    "createdAt": m["reviewed_at"],
                    "ref": {"milestoneId": m["id"], "enrollmentId": m.get("enrollment_id"), "status": st}})
    return out


def feed(user_id: str, role: str) -> dict:
    anns = announcements.unread_for_user(user_id, role)
    items = [{"id": f"announcement:{a['id']}", "type": "announcement", "title": a["title"], "message": a["content"],
              "createdAt": announcements.published_at(a), "read": False, "announcementId": a["id"],
              "ref": {"announcementId": a["id"], "category": a["category"], "level": a["type"]}} for a in anns]
    if role == "student":
        events = _enrollment_events(people.enrollments_of(user_id)) + _milestone_events(people.milestones_of(user_id))
        events.sort(key=lambda i: i["createdAt"], reverse=True)
        events = events[:MAX_ITEMS]
        read = repo.read_ids(user_id, [e["id"] for e in events])
        for e in events:
            e["read"] = e["id"] in read
        items += events
    items.sort(key=lambda i: i["createdAt"], reverse=True)
    items = items[:MAX_ITEMS]
    return {"success": True, "notifications": items, "unreadCount": sum(1 for i in items if not i["read"])}


def _own_event_ids(user_id: str) -> set[str]:
    """Ids of every enrollment and milestone entry the user's own records produce (bounded reads)."""
    events = _enrollment_events(people.enrollments_of(user_id)) + _milestone_events(people.milestones_of(user_id))
    return {e["id"] for e in events}


def mark_read(user_id: str, role: str, announcement_id: str | None, notification_id: str | None) -> dict:
    if announcement_id:
        return announcements.mark_read(user_id, role, announcement_id)
    if notification_id:
        if notification_id.startswith("announcement:"):
            return announcements.mark_read(user_id, role, notification_id.split(":", 1)[1])
        if not notification_id.startswith(("enrollment:", "milestone:")):
            raise BadRequest("notificationId is not a known notification")
        if role != "student" or notification_id not in _own_event_ids(user_id):
            raise NotFound("Notification not found")
        repo.mark_read(user_id, notification_id, settings().notification_marks_per_user)
        return {"success": True, "notificationId": notification_id, "read": True}
    raise BadRequest("announcementId is required")
