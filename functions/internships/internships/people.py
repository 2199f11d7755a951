"""Read-only access to JOURNEY's items (users, enrollments, milestones) that ENGAGE needs.

Announcements (audiences), notifications (the feed), job alerts and reminders all read through
it, so it sits below every ENGAGE package and imports nothing of theirs.
Key design: ``docs/internships-data-model.md``. Only this module knows those keys on ENGAGE's side.
"""
from __future__ import annotations

from typing import Iterator

from lambdakit.ddb import Table

from .settings import settings

MAX_PER_USER = 200


def table() -> Table:
    return Table(settings().table_name)


def user(user_id: str) -> dict | None:
    return table().get(f"USER#{user_id}", "PROFILE")


def users(user_ids: list[str]) -> dict[str, dict]:
    return {u["id"]: u for u in table().batch_get([(f"USER#{u}", "PROFILE") for u in user_ids]) if "id" in u}


def enrollments_of(user_id: str) -> list[dict]:
    return table().query_all(f"USER#{user_id}#ENROLLS", index="gsi1", max_items=MAX_PER_USER)


def milestones_of(user_id: str) -> list[dict]:
    return table().query_all(f"USER#{user_id}#MILESTONES", index="gsi2", max_items=MAX_PER_USER)


def milestones_of_enrollment(enrollment_id: str) -> list[dict]:
    return table().query_all(f"ENROLL#{enrollment_id}", sk_prefix="MS#", max_items=100)


def enrollments_with_status(status: str) -> Iterator[dict]:
    """Every enrollment in ``status`` (scheduled jobs and email fan-out only)."""
    return table().iter_query(f"ENROLLS#{status}", index="gsi3")


def active_enrollments_after(after: str) -> Iterator[dict]:
    """The active enrollments in index order (``gsi3sk``: creation time and id) after the cursor
    ``after`` (a resumed scheduled job, ``internships.tasks``; ``""``: from the first)."""
    for e in enrollments_with_status("active"):
        if str(e.get("gsi3sk") or "") > after:
            yield e


def users_with_role(role: str) -> Iterator[dict]:
    return table().iter_query(f"ROLE#{role}", index="gsi2")


def all_users() -> Iterator[dict]:
    return table().iter_query("USERS", index="gsi1")
