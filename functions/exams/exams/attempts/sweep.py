"""Scheduled sweep (EventBridge, every minute): submits attempts past deadline + grace with
their saved answers. Reads the sparse ``OPEN#<shard>`` index only (never scans)."""
from __future__ import annotations

from typing import Any, Callable, Iterator

from lambdakit import clock
from lambdakit.observability import count, worker_entry

from ..http import logger
from ..settings import settings
from . import paper
from . import repository as repo
from .submission import auto_submit

PER_SHARD = 200


def _per_shard(read: Callable[[int], list[dict]]) -> Iterator[list[dict]]:
    """``read(shard)`` of every shard, in shard order. The reads are independent, so they are sent
    at once (one round trip instead of one per shard); each result, or its failure, is handed over
    in turn, so shards before a failed read are processed exactly as when read one by one."""
    n = settings().sweep_shards
    if n <= 1:
        yield from (read(shard) for shard in range(n))
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=n) as pool:
        futures = [pool.submit(read, shard) for shard in range(n)]
        for f in futures:
            yield f.result()


def run() -> dict:
    s = settings()
    cutoff = paper.iso_at(clock.now_ts() - s.answer_grace_seconds)
    submitted = seen = 0
    for due in _per_shard(lambda shard: repo.due(shard, cutoff, PER_SHARD)):
        for item in due:
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
    for due in _per_shard(lambda shard: repo.folds_due(shard, cutoff, PER_SHARD)):
        for item in due:
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
