"""Task records (``TASK#<id>``/``TASK``, TTL) and the tasks queue: the only boto3 of ``tasks``."""
from __future__ import annotations

import json

from lambdakit import aws, clock
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed

from ..settings import settings

#: A task record lives 7 days after its last change (its status stays readable that long).
TTL_SECONDS = 7 * 86400


def table() -> Table:
    return Table(settings().table_name)


def _key(task_id: str) -> tuple[str, str]:
    return f"TASK#{task_id}", "TASK"


def create(task_id: str, origin: str, kind: str, state: dict, result: dict) -> dict:
    """A new running task at step 1 (the request's share is done); ``attribute_not_exists``."""
    pk, sk = _key(task_id)
    now = clock.now_iso()
    item = {"pk": pk, "sk": sk, "id": task_id, "origin": origin, "kind": kind, "status": "running", "seq": 1,
            "state": state, "result": result, "created_at": now, "updated_at": now,
            "ttl": int(clock.now_ts()) + TTL_SECONDS}
    table().put_new(item, fresh_key=True)
    return item


def get(task_id: str) -> dict | None:
    pk, sk = _key(task_id)
    return table().get(pk, sk, consistent=True)


def commit(task_id: str, seq: int, state: dict | None, result: dict) -> bool:
    """Record one worker run's progress when the record is still at ``seq`` (another delivery of
    the same message has not recorded it): False otherwise, and nothing is written."""
    pk, sk = _key(task_id)
    now = clock.now_iso()
    changes: dict = {"seq": seq + 1, "result": result, "updated_at": now, "ttl": int(clock.now_ts()) + TTL_SECONDS}
    if state is None:
        changes.update(status="done", finished_at=now, state={})
    else:
        changes["state"] = state
    try:
        table().update(pk, sk, set=changes, condition="#seq = :seq AND #st = :running",
                       names={"#seq": "seq", "#st": "status"}, values={":seq": seq, ":running": "running"},
                       must_exist=True)
    except ConditionFailed:
        return False
    return True


def fail(task_id: str, seq: int, error: str) -> None:
    """Mark the task failed (the worker gave up on it: unknown kind)."""
    pk, sk = _key(task_id)
    try:
        table().update(pk, sk, set={"status": "failed", "error": error[:200], "finished_at": clock.now_iso()},
                       condition="#seq = :seq", names={"#seq": "seq"}, values={":seq": seq}, must_exist=True)
    except ConditionFailed:
        pass


def send(task_id: str) -> None:
    """Hand the task to the worker (CronFunction, through the tasks queue)."""
    url = settings().tasks_queue_url
    if not url:
        raise RuntimeError("tasks queue URL not configured")
    aws.client("sqs").send_message(QueueUrl=url, MessageBody=json.dumps({"taskId": task_id}))
