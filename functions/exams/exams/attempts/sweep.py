"""Scheduled sweep (EventBridge, every minute): submits attempts past deadline + grace with
their saved answers. Reads the sparse ``OPEN#<shard>`` index only (never scans)."""
from __future__ import annotations

from typing import Any

from lambdakit import clock
from lambdakit.observability import worker_entry

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
    return {"seen": seen, "submitted": submitted}


@worker_entry(logger)
def lambda_handler(event: dict, context: Any) -> dict:
    result = run()
    logger.info("attempt sweep", extra=result)
    return result
