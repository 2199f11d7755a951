"""Milestones of an enrollment, built from its domain's plan when the enrollment activates.

Key: ``pk=ENROLL#<enrollment_id>``, ``sk=MS#<nn>``; id ``<enrollment_id>-<nn>`` parses back to the key.
Indexes: gsi1 ``MILESTONES#<status>``, gsi2 ``USER#<user_id>#MILESTONES``, gsi3 ``MILESTONES#SUBMISSIONS``
(only while submitted, reviewed or rejected), sort keys ``<status changed at>#<id>``.
Due dates spread the duration (30 days per unit) evenly over the milestones.
A milestone carries copies of its enrollment's ``ENROLLMENT_COPY`` (set when the enrollment is
created, never changed): the admin review queue shows them without reading the enrollments.
"""
from __future__ import annotations

import datetime as dt

from lambdakit import clock

#: The enrollment's attributes a milestone carries (written once with the enrollment, never changed).
ENROLLMENT_COPY = ("student_name", "student_email", "domain_name")


def milestone_id(enrollment_id: str, order: int) -> str:
    return f"{enrollment_id}-{order:02d}"


def parse_id(mid: str) -> tuple[str, int] | None:
    eid, sep, n = (mid or "").rpartition("-")
    if not sep or not eid or not n.isdigit() or len(mid) > 80:
        return None
    return eid, int(n)


def key(enrollment_id: str, order: int) -> tuple[str, str]:
    return f"ENROLL#{enrollment_id}", f"MS#{order:02d}"


# Statuses of a milestone that has been submitted at least once: the admin review queue lists them
# together, newest status change first, from gsi3 (``MILESTONES#SUBMISSIONS``).
SUBMISSION_STATUSES = ("submitted", "reviewed", "rejected")
SUBMISSIONS_INDEX_PK = "MILESTONES#SUBMISSIONS"


def index_attrs(m: dict, status: str, now: str) -> dict:
    """gsi1: one partition per status; gsi3: every submission (any of SUBMISSION_STATUSES)."""
    out = {"gsi1pk": f"MILESTONES#{status}", "gsi1sk": f"{now}#{m['id']}"}
    if status in SUBMISSION_STATUSES:
        out.update(gsi3pk=SUBMISSIONS_INDEX_PK, gsi3sk=f"{now}#{m['id']}")
    return out


def index_removals(status: str) -> list[str]:
    """Index attributes a change to ``status`` must drop (back to pending: out of the review queue)."""
    return [] if status in SUBMISSION_STATUSES else ["gsi3pk", "gsi3sk"]


def build(enrollment: dict, plan: list[dict], activated_at: str) -> list[dict]:
    start = clock.parse_iso(activated_at)
    n = len(plan)
    total_days = 30 * int(enrollment["duration"])
    out = []
    for i, step in enumerate(plan, start=1):
        mid = milestone_id(enrollment["id"], i)
        pk, sk = key(enrollment["id"], i)
        due = (start + dt.timedelta(days=total_days * i / n)).date().isoformat()
        item = {"pk": pk, "sk": sk, "id": mid, "enrollment_id": enrollment["id"], "user_id": enrollment["user_id"],
                "domain_id": enrollment["domain_id"], "order": i, "title": step["title"],
                "description": step.get("description", ""), "status": "pending", "due_date": due,
                "created_at": activated_at, "updated_at": activated_at,
                "gsi2pk": f"USER#{enrollment['user_id']}#MILESTONES", "gsi2sk": f"{enrollment['id']}#{i:02d}",
                **{k: enrollment[k] for k in ENROLLMENT_COPY if k in enrollment}}
        item.update(index_attrs(item, "pending", activated_at))
        out.append(item)
    return out
