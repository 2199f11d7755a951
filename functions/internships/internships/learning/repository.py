"""Milestones (``ENROLL#<eid>`` / ``MS#<nn>``) and the resources students read (gsi1
``DOMAIN#<domain_id>#RESOURCES``); the enrollment a milestone belongs to, read and checked in
place (``ENROLL#<eid>`` / ``ENROLL``: the enrollments package owns it and builds the milestones
with ``plan`` when it activates, so this package does not import it)."""
from __future__ import annotations

from collections.abc import Mapping

from lambdakit.conditions import Attr
from lambdakit.errors import ConditionFailed

from .. import counters
from ..store import clean as _clean
from ..store import table
from . import plan


def list_for_enrollment(eid: str, *, consistent: bool = False) -> list[dict]:
    return [_clean(i) for i in table().query_all(f"ENROLL#{eid}", sk_prefix="MS#", consistent=consistent,
                                                 max_items=100)]


def get(eid: str, order: int, *, consistent: bool = True,
        read: Mapping[tuple[str, str], dict | None] | None = None) -> dict | None:
    """``read``: items already read (``auth.read_with_auth``; strongly consistent ones when ``consistent``)."""
    key = plan.key(eid, order)
    if read is not None and key in read:
        return _clean(read[key])
    return _clean(table().get(*key, consistent=consistent))


def milestone_key(mid: str | None) -> tuple[str, str] | None:
    """The key of a milestone id (``None`` for an id no milestone can have)."""
    parsed = plan.parse_id(mid or "")
    return plan.key(*parsed) if parsed else None


def milestone_and_enrollment_keys(mid: str | None) -> list[tuple[str, str]]:
    """The keys of a milestone and of its enrollment (``[]`` for an id no milestone can have)."""
    parsed = plan.parse_id(mid or "")
    if not parsed:
        return []
    ekey = enrollment_key(parsed[0])
    return [plan.key(*parsed), *([ekey] if ekey else [])]


def change_status(m: dict, new_status: str, fields: dict, *, expect: str | None, checks: list[dict] | None = None,
                  now: str, mail_ops: list[dict] | None = None, fresh: tuple[int, ...] = ()) -> dict:
    """Conditional status change (``expect``: the status it must still have) with counters and index.
    ``mail_ops`` (last): the email reporting the change, written in the same transaction (the
    transactional outbox); ``fresh``: their indexes counted from the first of them (a collision: 503)."""
    pk, sk = plan.key(m["enrollment_id"], m["order"])
    cond_values: dict = {}
    cond = "attribute_exists(pk)"
    if expect is not None:
        cond += " AND #st = :expect"
        cond_values[":expect"] = expect
    ops: list[dict] = [
        {"update": (pk, sk), "set": {**fields, "status": new_status, "updated_at": now,
                                     **plan.index_attrs(m, new_status, now)},
         **({"remove": removals} if (removals := plan.index_removals(new_status)) else {}),
         "condition": cond, "names": {"#st": "status"}, **({"values": cond_values} if cond_values else {})},
        *(checks or []),
        *counters.milestone_status_ops(m["status"], new_status),
    ]
    table().transact(ops + (mail_ops or []), fresh=tuple(len(ops) + i for i in fresh))
    return {**m, **fields, "status": new_status, "updated_at": now}


def index_submissions(max_items: int = 500) -> dict:
    """Migration (invoke-only task ``index-milestone-submissions``): put the submitted, reviewed and
    rejected milestones written before the review queue's gsi3 existed into it, with the sort key of
    their gsi1 entry. Bounded per call (``max_items`` updates); idempotent; ``more`` says to call again."""
    t = table()
    indexed = 0
    for status in plan.SUBMISSION_STATUSES:
        for m in t.iter_query(f"MILESTONES#{status}", index="gsi1", filter=Attr("gsi3pk").not_exists()):
            if indexed >= max_items:
                return {"indexed": indexed, "more": True}
            try:
                t.update(m["pk"], m["sk"], set={"gsi3pk": plan.SUBMISSIONS_INDEX_PK, "gsi3sk": m["gsi1sk"]},
                         condition="#st = :st AND attribute_not_exists(gsi3pk)", names={"#st": "status"},
                         values={":st": status}, return_values="NONE")
                indexed += 1
            except ConditionFailed:
                continue  # changed meanwhile: its status change already indexed it
    return {"indexed": indexed, "more": False}


def status_check(eid: str, order: int, status: str) -> dict:
    return {"check": plan.key(eid, order), "condition": "#st = :want", "names": {"#st": "status"},
            "values": {":want": status}}


def enrollment_key(eid: str | None) -> tuple[str, str] | None:
    """The key of an enrollment (``None`` for an id no enrollment can have)."""
    if not eid or len(eid) > 64:
        return None
    return f"ENROLL#{eid}", "ENROLL"


def enrollment(eid: str, read: Mapping[tuple[str, str], dict | None] | None = None) -> dict | None:
    """The enrollment (eventually consistent); ``read``: items already read (``auth.read_with_auth``)."""
    key = enrollment_key(eid)
    if key is None:
        return None
    if read is not None and key in read:
        return _clean(read[key])
    return _clean(table().get(*key))


def enrollment_check(eid: str, status: str) -> dict:
    return {"check": (f"ENROLL#{eid}", "ENROLL"), "condition": "#st = :est", "names": {"#st": "status"},
            "values": {":est": status}}


def presigned_download(key: str, seconds: int = 3600) -> str:
    """A short-lived GET URL for a resource file uploaded by staff (``file_key`` in the files bucket)."""
    from lambdakit import s3

    from ..settings import settings

    return s3.presign_url("get_object", settings().files_bucket, key, seconds)


def resources_for_domain(domain_id: str) -> list[dict]:
    items = table().query_all(f"DOMAIN#{domain_id}#RESOURCES", index="gsi1", max_items=1000)
    return [_clean(i) for i in items]
