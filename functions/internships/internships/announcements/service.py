"""Announcements: audience rules, visibility window, read marks, admin CRUD, email fan-out.

The fan-out is a request and its consumer: saving a live ``send_email`` announcement puts a
fan-out request on the email queue (``repository.request_fanout``); the email worker (and the
``process-emails`` sweep, for lost or scheduled ones) consumes it with ``fan_out(id, enqueue)``,
handing in the outbox's ``enqueue_ex``. So this package never imports ``mail``: mail sits above it.

Visible to a user when ``is_active`` is true, ``status`` is ``active`` (or ``scheduled`` once
``scheduled_for`` has passed), ``scheduled_for`` is empty or past, ``expires_at`` is empty or
future, and ``target_audience`` matches the user:

* ``all`` / ``registered``: every signed-in account;
* ``students``: role student;
* ``enrolled``: a student with an active or completed enrollment;
* ``active``: a student with an active enrollment;
* ``inactive``: a student with enrollments but none active;
* ``unenrolled``: a student with no active or completed enrollment;
* ``specific_domains``: a student with an active or completed enrollment in one of ``target_domains``.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING

from lambdakit import clock, ids, occupancy
from lambdakit.errors import BadRequest, Conflict, NotFound
from lambdakit.pagination import page_meta, page_request

from .. import activity, people
from . import repository as repo

#: the key of the announcements counter (the admin list's total), for ``auth.Reads``
TOTAL_KEY = repo.COUNTER

if TYPE_CHECKING:
    from .models import AnnouncementCreate, AnnouncementUpdate

logger = logging.getLogger("internships.announcements")

ENROLLED = ("active", "completed")

# the outbox's ``enqueue_ex(template, to, data, *, dedupe_key, user_id) -> (email_id, created)``
Enqueue = Callable[..., tuple[str, bool]]


def now_naive() -> str:
    return clock.now().replace(tzinfo=None, microsecond=0).isoformat()


def is_live(a: dict, now: str | None = None) -> bool:
    now = now or now_naive()
    if not a.get("is_active") or a.get("status") not in ("active", "scheduled"):
        return False
    if a.get("scheduled_for") and a["scheduled_for"] > now:
        return False
    if a["status"] == "scheduled" and not a.get("scheduled_for"):
        return False
    if a.get("expires_at") and a["expires_at"] <= now:
        return False
    return True


class Viewer:
    """What the audience rules need to know about a user (enrollments read lazily, once)."""

    def __init__(self, user_id: str, role: str) -> None:
        self.user_id, self.role = user_id, role
        self._enrollments: list[dict] | None = None

    @property
    def enrollments(self) -> list[dict]:
        if self._enrollments is None:
            self._enrollments = people.enrollments_of(self.user_id) if self.role == "student" else []
        return self._enrollments

    def statuses(self) -> set[str | None]:
        return {e.get("status") for e in self.enrollments}

    def enrolled_domains(self) -> set[str | None]:
        return {e.get("domain_id") for e in self.enrollments if e.get("status") in ENROLLED}


def audience_match(a: dict, v: Viewer) -> bool:
    aud = a.get("target_audience", "all")
    if aud in ("all", "registered"):
        return True
    if v.role != "student":
        return False
    if aud == "students":
        return True
    st = v.statuses()
    if aud == "enrolled":
        return bool(st & set(ENROLLED))
    if aud == "active":
        return "active" in st
    if aud == "inactive":
        return bool(st) and "active" not in st
    if aud == "unenrolled":
        return not (st & set(ENROLLED))
    if aud == "specific_domains":
        return bool(v.enrolled_domains() & set(a.get("target_domains") or []))
    return False


def visible_for(user_id: str, role: str) -> list[dict]:
    v = Viewer(user_id, role)
    now = now_naive()
    out = [a for a in repo.live() if is_live(a, now) and audience_match(a, v)]
    out.sort(key=lambda a: (int(a.get("priority", 0)), a.get("scheduled_for") or a["created_at"]), reverse=True)
    return out


def published_at(a: dict) -> str:
    """When the user could first see it (ISO, Z)."""
    if a.get("scheduled_for"):
        return a["scheduled_for"] + ".000Z" if len(a["scheduled_for"]) == 19 else a["scheduled_for"]
    return a["created_at"]


def _default_channels() -> dict:
    from .models import DeliveryChannels  # lazily: the models are not imported at cold start

    return DeliveryChannels().model_dump()


def student_view(a: dict, read: bool) -> dict:
    return {"id": a["id"], "title": a["title"], "content": a["content"], "type": a["type"],
            "category": a["category"], "priority": int(a.get("priority", 0)), "createdAt": published_at(a),
            "scheduledFor": a.get("scheduled_for"), "expiresAt": a.get("expires_at"),
            "deliveryChannels": a.get("delivery_channels") or _default_channels(), "isRead": read}


def list_for_user(user_id: str, role: str) -> dict:
    anns = visible_for(user_id, role)
    read = repo.read_marks(user_id, [a["id"] for a in anns])
    items = [student_view(a, a["id"] in read) for a in anns]
    return {"success": True, "announcements": items, "unreadCount": sum(1 for i in items if not i["isRead"])}


def unread_for_user(user_id: str, role: str) -> list[dict]:
    anns = visible_for(user_id, role)
    read = repo.read_marks(user_id, [a["id"] for a in anns])
    return [a for a in anns if a["id"] not in read]


def unread_count(user_id: str, role: str) -> int:
    return len(unread_for_user(user_id, role))


def mark_read(user_id: str, role: str, ann_id: str) -> dict:
    if not isinstance(ann_id, str) or not ann_id.strip() or len(ann_id) > 64:
        raise BadRequest("announcementId is required")
    a = repo.get(ann_id.strip())
    if not a or not is_live(a) or not audience_match(a, Viewer(user_id, role)):
        raise NotFound("Announcement not found")
    repo.mark_read(user_id, a["id"])
    return {"success": True, "announcementId": a["id"], "read": True}


# ---------------------------------------------------------------- admin
def admin_view(a: dict) -> dict:
    """The admin's view of the stored announcement ``a``: ``models.Announcement`` (the model of the admin
    routes, ``admin_engagement``), every field present, ``null`` until set (``email_queued_at`` and
    ``email_recipients`` until the fan-out)."""
    from lambdakit.model import dump

    from .models import Announcement  # lazily: the models are not imported at cold start

    return dump(Announcement, a)


@cache
def defaults() -> dict:
    """The attributes a new announcement starts from (built once, on first use: ``DeliveryChannels`` is a
    pydantic model, not built at import)."""
    from .models import DeliveryChannels

    return {"type": "info", "category": "general", "target_audience": "all", "target_domains": [], "priority": 0,
            "status": "active", "is_active": True, "scheduled_for": None, "expires_at": None,
            "delivery_channels": DeliveryChannels().model_dump(), "send_email": False}


def _check(a: dict) -> None:
    if a["target_audience"] == "specific_domains" and not a["target_domains"]:
        raise BadRequest("target_domains is required when target_audience is specific_domains")
    if a["status"] == "scheduled" and not a.get("scheduled_for"):
        raise BadRequest("scheduled_for is required when status is scheduled")
    if a.get("scheduled_for") and a.get("expires_at") and a["expires_at"] <= a["scheduled_for"]:
        raise BadRequest("expires_at must be after scheduled_for")


def create(admin_id: str, body: AnnouncementCreate) -> dict:
    data = body.model_dump(exclude_unset=True)
    if body.delivery_channels is not None:  # all four channels: the ones not given take their defaults
        data["delivery_channels"] = body.delivery_channels.model_dump()
    now = clock.now_iso()
    a = {**defaults(), **{k: v for k, v in data.items() if v is not None}, "id": ids.sortable_id(),
         "created_by": admin_id, "created_at": now, "updated_at": now}
    if a["target_audience"] != "specific_domains":
        a["target_domains"] = a.get("target_domains") or []
    _check(a)
    repo.create(a)
    activity.record(admin_id, "announcement.create", "announcement", a["id"], after=admin_view(a))
    maybe_send_email(a)
    return admin_view(repo.get(a["id"]) or a)


def get(ann_id: str) -> dict:
    a = repo.get(ann_id)
    if not a:
        raise NotFound("Announcement not found")
    return admin_view(a)


def update(admin_id: str, ann_id: str, body: AnnouncementUpdate) -> dict:
    current = repo.get(ann_id)
    if not current:
        raise NotFound("Announcement not found")
    changes = body.model_dump(exclude_unset=True)
    for k in ("title", "content", "type", "category", "target_audience", "status", "is_active", "priority",
              "delivery_channels", "send_email", "target_domains"):
        if k in changes and changes[k] is None:
            raise BadRequest(f"{k} cannot be null")
    if changes.get("delivery_channels") is not None:  # the channels given change; the others keep theirs
        changes["delivery_channels"] = {**defaults()["delivery_channels"], **(current.get("delivery_channels") or {}),
                                        **changes["delivery_channels"]}
    new = {**current, **changes, "updated_at": clock.now_iso()}
    _check(new)
    if not repo.replace({k: v for k, v in new.items() if not k.startswith("gsi") and k not in ("pk", "sk")},
                        current["updated_at"]):
        raise Conflict("The announcement was changed meanwhile; reload and try again")
    activity.record(admin_id, "announcement.update", "announcement", ann_id,
                    before={k: admin_view(current)[k] for k in changes}, after=changes)
    maybe_send_email(new)
    return admin_view(repo.get(ann_id) or new)


def delete(admin_id: str, ann_id: str) -> dict:
    old = repo.delete(ann_id)
    if not old:
        raise NotFound("Announcement not found")
    activity.record(admin_id, "announcement.delete", "announcement", ann_id, before=admin_view(old))
    return {"success": True, "id": ann_id, "deleted": True}


def admin_list(page: str | None, limit: str | None, read: Mapping | None = None) -> dict:
    """``read``: items read with authentication (``auth.read_with_auth``), the counter among them."""
    req = page_request(page, limit)
    items, _ = repo.page(req.offset, req.limit)
    return {"success": True, "announcements": [admin_view(a) for a in items],
            **page_meta(req, repo.total(read))}


# ---------------------------------------------------------------- email fan-out
def maybe_send_email(a: dict) -> None:
    """Ask the email worker to fan out a live announcement with ``send_email`` (once)."""
    if not a.get("send_email") or a.get("email_queued_at") or not is_live(a):
        return
    try:
        repo.request_fanout(a["id"])
    except Exception:  # noqa: BLE001 - the process-emails sweep fans it out later
        logger.warning("could not queue announcement fan-out", extra={"announcement_id": a["id"]})


def recipients(a: dict):
    """(user_id, email, name) of the audience; each user once."""
    aud = a.get("target_audience", "all")
    seen: set[str] = set()
    if aud in ("enrolled", "active", "specific_domains"):
        statuses = ("active",) if aud == "active" else ENROLLED
        domains = set(a.get("target_domains") or [])
        for st in statuses:
            for e in people.enrollments_with_status(st):
                if aud == "specific_domains" and e.get("domain_id") not in domains:
                    continue
                uid = e.get("user_id")
                if uid and uid not in seen and e.get("student_email"):
                    seen.add(uid)
                    yield uid, e["student_email"], e.get("student_name") or ""
        return
    source = people.all_users() if aud in ("all", "registered") else people.users_with_role("student")
    for u in source:
        uid = u.get("id")
        if not uid or uid in seen or u.get("disabled") or not u.get("email"):
            continue
        if aud in ("inactive", "unenrolled") and not audience_match(a, Viewer(uid, u.get("role", "student"))):
            continue
        seen.add(uid)
        yield uid, u["email"], u.get("name") or ""


def fan_out(ann_id: str, enqueue: Enqueue) -> int:
    """Queue one announcement email per audience member through ``enqueue`` (the outbox's
    ``enqueue_ex``, handed in by the consumer); dedupe key per user. Returns how many are new."""
    a = repo.get(ann_id)
    if not a or not a.get("send_email") or a.get("email_queued_at") or not is_live(a):
        return 0
    count = 0
    for uid, email, name in recipients(a):
        try:
            _, created = enqueue("announcement", email, {"name": name, "title": a["title"], "content": a["content"],
                                                         "announcementId": a["id"]},
                                 dedupe_key=f"ann:{a['id']}:{uid}", user_id=uid)
        except Exception:  # noqa: BLE001 - one bad address must not stop the rest
            logger.warning("skipped an announcement recipient", extra={"announcement_id": a["id"]})
            continue
        count += int(created)
    repo.mark_email_queued(a["id"], count)
    return count


#: the fan-out's occupancy marker, read by the sweep with its other keys (``pending_fanouts``)
FANOUT_MARK = repo.FANOUT_MARK


def pending_fanouts(marks: Mapping | None = None) -> list[str]:
    """Live announcements whose email has not been queued yet (the sweep's safety net).

    ``marks``: the occupancy markers the sweep read (``lambdakit.occupancy``: ``FANOUT_MARK`` when set,
    every marker on a full sweep); ``ANNLIVE`` is queried only when ``FANOUT_MARK`` is among them, and a
    clearable marker is cleared once nothing there waits for a fan-out (due or scheduled). A save that
    may need the fan-out marks first (``repository.create``/``replace``). ``None``: query regardless."""
    mark = None
    if marks is not None:
        mark = marks.get(FANOUT_MARK)
        if mark is None:
            return []
    now = now_naive()
    waiting = [a for a in repo.live() if repo.needs_fanout(a) and not (a.get("expires_at") and a["expires_at"] <= now)]
    if mark is not None:
        occupancy.found(mark, FANOUT_MARK, len(waiting))
        if not waiting and occupancy.clearable(mark):
            repo.markers.clear(FANOUT_MARK, mark)
    return [a["id"] for a in waiting if is_live(a, now)]
