"""Announcement items.

* announcement: ``pk="ANN#<id>"``, ``sk="ANN"``; ``gsi1pk="ANNS"``, ``gsi1sk="<created_at>#<id>"`` (admin list);
  ``gsi2pk="ANNLIVE"`` only while ``is_active`` and status is active or scheduled (the few candidates a
  student's list is computed from), ``gsi2sk="<created_at>#<id>"``.
* counters: ``pk="COUNTER#ANNOUNCEMENTS"``, ``sk="TOTAL"`` (``all``).
* read mark: ``pk="ANNREAD#<user_id>"``, ``sk="<announcement_id>"`` (``read_at``).
* fan-out marker: ``pk="OCCUPANCY"``, ``sk="ANNFANOUT"`` (``lambdakit.occupancy``): written before an
  announcement is saved on ``ANNLIVE`` with its e-mail still to fan out (``needs_fanout``), so the
  ``process-emails`` sweep queries ``ANNLIVE`` only while some may wait (``service.pending_fanouts``).

The email fan-out request is a message on the email queue, ``{"fanout": "announcement", "id": <id>}``,
which the email worker (``mail.worker``) consumes.
"""
from __future__ import annotations

import json
from collections.abc import Mapping

from lambdakit import aws, clock, occupancy
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed

from ..settings import settings

MAX_LIVE = 300
COUNTER = ("COUNTER#ANNOUNCEMENTS", "TOTAL")
#: The occupancy marker of the announcements waiting for their e-mail fan-out (on ``ANNLIVE``).
FANOUT_MARK = ("OCCUPANCY", "ANNFANOUT")


def table() -> Table:
    return Table(settings().table_name)


#: The marker's writer, with what this process marked (reset with the settings, as in tests).
markers = occupancy.Markers(table, owner=settings)


def needs_fanout(item: dict) -> bool:
    """Saved on ``ANNLIVE`` (active or scheduled, ``is_active``) with ``send_email`` and its e-mails
    not queued yet: the sweep's fan-out may have to pick it up (now or once it is due)."""
    return bool(item.get("is_active") and item.get("status") in ("active", "scheduled") and item.get("send_email")
                and not item.get("email_queued_at"))


def key(ann_id: str) -> tuple[str, str]:
    return f"ANN#{ann_id}", "ANN"


def _index(item: dict) -> dict:
    item = dict(item)
    item["gsi1pk"], item["gsi1sk"] = "ANNS", f"{item['created_at']}#{item['id']}"
    if item["is_active"] and item["status"] in ("active", "scheduled"):
        item["gsi2pk"], item["gsi2sk"] = "ANNLIVE", f"{item['created_at']}#{item['id']}"
    else:
        item.pop("gsi2pk", None)
        item.pop("gsi2sk", None)
    return item


def create(item: dict) -> None:
    if needs_fanout(item):
        markers.mark(FANOUT_MARK)
    table().transact([{"put": {"pk": key(item["id"])[0], "sk": "ANN", "type": "announcement", **_index(item)},
                       "condition": "attribute_not_exists(pk)"},
                      {"update": COUNTER, "add": {"all": 1}}], fresh=(0,))  # a fresh id: a collision is 503


def get(ann_id: str) -> dict | None:
    return table().get(*key(ann_id), consistent=True)


def replace(item: dict, expected_updated_at: str) -> bool:
    if needs_fanout(item):
        markers.mark(FANOUT_MARK)
    try:
        table().put({"pk": key(item["id"])[0], "sk": "ANN", "type": "announcement", **_index(item)},
                    condition="attribute_exists(pk) AND updated_at = :u", values={":u": expected_updated_at})
    except ConditionFailed:
        return False
    return True


def delete(ann_id: str) -> dict | None:
    try:
        old = table().delete(*key(ann_id), condition="attribute_exists(pk)", return_old=True)
    except ConditionFailed:
        return None
    table().increment(*COUNTER, {"all": -1})
    return old


def request_fanout(ann_id: str) -> None:
    """Ask the email worker to expand the announcement to its audience."""
    url = settings().email_queue_url
    if not url:
        raise RuntimeError("email queue URL not configured")
    aws.client("sqs").send_message(QueueUrl=url, MessageBody=json.dumps({"fanout": "announcement", "id": ann_id}))


def mark_email_queued(ann_id: str, count: int) -> bool:
    try:
        table().update(*key(ann_id), set={"email_queued_at": clock.now_iso(), "email_recipients": count},
                       condition="attribute_not_exists(email_queued_at)", must_exist=True)
    except ConditionFailed:
        return False
    return True


def live() -> list[dict]:
    return table().query_all("ANNLIVE", index="gsi2", max_items=MAX_LIVE)


def page(offset: int, limit: int) -> tuple[list[dict], str | None]:
    from ..admin_common import repository as listing

    return listing.page_items("ANNS", index="gsi1", offset=offset, limit=limit)


def total(read: Mapping[tuple[str, str], dict | None] | None = None) -> int:
    """The announcements counted (eventually consistent); ``read``: items already read
    (``auth.read_with_auth``), the counter among them or not."""
    item = read[COUNTER] if read is not None and COUNTER in read else table().get(*COUNTER)
    return int((item or {}).get("all", 0))


def read_marks(user_id: str, ann_ids: list[str]) -> set[str]:
    if not ann_ids:
        return set()
    return {i["sk"] for i in table().batch_get([(f"ANNREAD#{user_id}", a) for a in ann_ids])}


def mark_read(user_id: str, ann_id: str) -> None:
    table().update(f"ANNREAD#{user_id}", ann_id, set_if_absent={"read_at": clock.now_iso()})
