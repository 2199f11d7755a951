"""Work that may outlive an HTTP request (issue 33 item 6): a route does it inline while the Lambda
context's remaining time allows, then answers 202 with a task id and hands the rest to the worker
(CronFunction on the tasks queue), which resumes from the task record's cursor.

A *step* is ``step(state, more) -> (counts, next_state | None)``: it processes items from ``state``
(``{}`` at the start) while ``more()`` is true and returns what it did and where to resume (``None``:
finished). Every item must be idempotent (a dedupe key or a conditional write), because a worker run
that dies before recording its progress is redone from the last recorded cursor."""
from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from lambdakit import ids

from ..settings import settings
from . import repository as repo

logger = logging.getLogger("internships.tasks")

More = Callable[[], bool]
Step = Callable[[dict, More], tuple[dict, "dict | None"]]
#: At most this many entries of a list counter (``errors``) are kept on a task.
MAX_LIST = 20


def budget(context: Any, margin_ms: int) -> More:
    """True while the invocation has more than ``margin_ms`` left (no context: always true)."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if remaining is None:
        return lambda: True
    return lambda: int(remaining()) > margin_ms


def http_budget(context: Any) -> More:
    return budget(context, settings().task_http_margin_ms)


def worker_budget(context: Any) -> More:
    return budget(context, settings().task_worker_margin_ms)


def merge(total: dict, delta: dict) -> dict:
    """Counts add up (in nested dicts too), lists concatenate (first ``MAX_LIST`` kept), anything else: the latest."""
    out = dict(total)
    for k, v in delta.items():
        if isinstance(v, dict):
            out[k] = merge(dict(out.get(k) or {}), v)
        elif isinstance(v, bool) or not isinstance(v, (int, list)):
            out[k] = v
        elif isinstance(v, list):
            out[k] = (list(out.get(k) or []) + v)[:MAX_LIST]
        else:
            out[k] = int(out.get(k) or 0) + v
    return out


def _drive(step: Step, state: dict, result: dict, more: More) -> tuple[dict, dict | None]:
    while True:
        delta, next_state = step(state, more)
        result = merge(result, delta)
        if next_state is None or not more():
            return result, next_state
        state = next_state


def run_or_defer(origin: str, kind: str, step: Step, more: More) -> tuple[dict, str | None]:
    """``(result, None)`` when the work finished inline; ``(partial result, task id)`` when the rest
    went to the worker (the task record is written before its message is sent)."""
    result, state = _drive(step, {}, {}, more)
    if state is None:
        return result, None
    task_id = ids.sortable_id()
    repo.create(task_id, origin, kind, state, result)
    repo.send(task_id)
    logger.info("task deferred", extra={"task": task_id, "kind": kind})
    return result, task_id


def resume(task_id: str, steps: Mapping[str, Step], more: More,
           on_done: Callable[[dict, dict], None] | None = None) -> str:
    """One worker run of a task: ``done``, ``continued`` (out of time: a new message resumes it),
    ``superseded`` (another delivery recorded this step first: its progress stands), ``finished``
    (nothing to do), ``missing`` or ``failed`` (unknown kind). ``on_done(task, result)`` runs once the
    finishing run is recorded."""
    task = repo.get(task_id)
    if task is None:
        return "missing"
    if task.get("status") != "running":
        return "finished"
    seq = int(task["seq"])
    step = steps.get(str(task.get("kind")))
    if step is None:
        repo.fail(task_id, seq, "unknown task kind")
        return "failed"
    result, state = _drive(step, dict(task.get("state") or {}), dict(task.get("result") or {}), more)
    if not repo.commit(task_id, seq, state, result):
        return "superseded"
    if state is None:
        if on_done is not None:
            on_done(task, result)
        return "done"
    repo.send(task_id)
    return "continued"


def get(task_id: str, origin: str) -> dict | None:
    """The task's public view, ``None`` when unknown (or another origin's)."""
    task = repo.get(task_id) if task_id and len(task_id) <= 64 else None
    if task is None or task.get("origin") != origin:
        return None
    return {"ok": True, "taskId": task["id"], "kind": task["kind"], "status": task["status"],
            **{k: _plain(v) for k, v in (task.get("result") or {}).items()},
            "createdAt": task.get("created_at"), "updatedAt": task.get("updated_at"),
            "finishedAt": task.get("finished_at")}


def _plain(v: Any) -> Any:
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if hasattr(v, "as_integer_ratio") and not isinstance(v, (int, float, bool)):
        return int(v) if v == int(v) else float(v)
    return v
