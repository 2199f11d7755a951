"""Scheduled sweep (EventBridge, every minute): submits attempts past deadline + grace with
their saved answers. Reads the sparse ``OPEN#<shard>`` index only (never scans)."""
from __future__ import annotations

from typing import Any

from lambdakit import clock
from lambdakit.observability import count, worker_entry

from ..http import logger
from ..settings import settings
from . import paper
from . import repository as repo
from .submission import auto_submit

PER_SHARD = 200


def run() -> dict:
    s = settings()
    cutoff = paper.iso_at(clock.now_ts() - s.answer_grace_seconds)
    submitted = seen = 0
    for shard in range(s.sweep_shards):
        for item in repo.due(shard, cutoff, PER_SHARD):
            seen += 1
            try:
                if auto_submit(item["id"], "deadline"):
                    submitted += 1
            except Exception:  # noqa: BLE001 - one bad attempt must not stop the sweep
                logger.exception("sweep submit failed", extra={"attempt_id": item.get("id")})
    return {"seen": seen, "submitted": submitted, "folds_requeued": requeue_folds()}


def requeue_folds() -> int:
    """The analytics fold outbox: re-queue every ``attempt_graded`` whose fold has waited more than
    ``FOLD_DUE_AFTER`` seconds (its message was refused or lost); each is counted in the
    ``AnalyticsFoldsRequeued`` metric. A queue still refusing leaves the entry for the next run."""
    cutoff = int(clock.now_ts()) - repo.FOLD_DUE_AFTER
    n = 0
    for shard in range(settings().sweep_shards):
        for item in repo.folds_due(shard, cutoff, PER_SHARD):
            try:
                repo.enqueue_analytics({"type": "attempt_graded", "attempt_id": item["sk"],
                                        "test_id": item.get("test_id")})
            except Exception:  # noqa: BLE001 - the queue is down: the entry waits for the next run
                logger.exception("fold re-queue failed", extra={"attempt_id": item["sk"]})
                return n
            repo.postpone_fold(item["sk"])
            n += 1
    if n:
        count("AnalyticsFoldsRequeued", n)
    return n


@worker_entry(logger)
def lambda_handler(event: dict, context: Any) -> dict:
    result = run()
    logger.info("attempt sweep", extra=result)
    return result
