"""Scheduled sweep (EventBridge, every minute): submits attempts past deadline + grace with
their saved answers, and re-queues the analytics fold outbox. Reads the sparse ``OPEN#<shard>``
index and the ``FOLDDUE#<shard>`` partitions only (never scans), and of those only the shards
whose occupancy marker is set (``lambdakit.occupancy``).

Markers. A start marks its attempt's ``OPEN`` shard before the start transaction, a fold entry
its ``FOLDDUE`` shard before the put (``repository.markers``; one marker write per process and
shard in ``occupancy.REUSE_SECONDS``, 10 minutes: a surge of 5,000 starts a minute served by P
concurrent processes adds at most P marker writes per shard per 10 minutes, not one per start).
A tick reads the 16 markers in one consistent BatchGetItem (an idle tick: that one call) and
queries only the marked shards. A marker set longer ago than ``occupancy.CLEAR_AFTER_SECONDS`` (30
minutes) is cleared, with a conditional delete, once its shard is queried empty after the read; a
start racing that clear wrote a newer marker, so the delete fails and the shard stays marked.

The bound and the worst case. The ``OPEN`` index is a GSI, eventually consistent: the markers
assume it shows a start within ``occupancy.INDEX_LAG_SECONDS`` (5 minutes; DynamoDB's GSI lag
is normally well under a second, and it gives no bound). Within that bound no due attempt is
missed: it is submitted by the first tick after deadline + grace, as without markers (about a
minute). Beyond it a shard's marker may be cleared while an attempt on it does not show yet; the
net: every shard is queried once in each ``occupancy.FULL_SWEEP_MINUTES`` (30) whatever its marker
says, spread over the period (``occupancy.with_net``: a tick adds at most two shard queries; an
unmarked shard is never cleared), so such an attempt is submitted at most 30 minutes (plus a
tick) after deadline + grace, never stranded. The same holds for a fold entry (its re-queue
comes at most 30 minutes after ``FOLD_DUE_AFTER``). A marker read that fails queries every shard
(as the full sweep). Submission stays exactly once (``submission.auto_submit``: a conditional state change)."""
from __future__ import annotations

from typing import Any

from lambdakit import clock, occupancy
from lambdakit.observability import count, worker_entry

from ..http import logger
from ..settings import settings
from . import paper
from . import repository as repo
from .submission import auto_submit

PER_SHARD = 200

Marks = dict[occupancy.Key, dict]


def marks() -> Marks:
    """The sweep's markers (``repo.sweep_marks``) in one read, with this minute's share of the net
    (``occupancy.with_net``); every shard when the read failed (then nothing is cleared)."""
    keys = repo.sweep_marks()
    try:
        found = repo.markers.read(keys)
    except Exception:  # noqa: BLE001 - query every shard rather than none
        logger.exception("sweep markers not read; every shard is queried")
        return occupancy.unread(keys)
    return occupancy.with_net(keys, found)


def run() -> dict:
    m = marks()
    s = settings()
    cutoff = paper.iso_at(clock.now_ts() - s.answer_grace_seconds)
    submitted = seen = 0
    for shard in range(s.sweep_shards):
        for item in _due(shard, cutoff, m):
            seen += 1
            try:
                if auto_submit(item["id"], "deadline"):
                    submitted += 1
            except Exception:  # noqa: BLE001 - one bad attempt must not stop the sweep
                logger.exception("sweep submit failed", extra={"attempt_id": item.get("id")})
    return {"seen": seen, "submitted": submitted, "folds_requeued": requeue_folds(m)}


def _due(shard: int, cutoff_iso: str, m: Marks) -> list[dict]:
    """The due attempts of a marked shard (``repo.due``). A clearable marker: the shard is queried
    without the cutoff (the due attempts lead that ascending query, the same ``PER_SHARD`` of them)
    and, found empty, its marker is cleared."""
    key = repo.open_mark(shard)
    mark = m.get(key)
    if mark is None:
        return []
    if not occupancy.clearable(mark):
        due = repo.due(shard, cutoff_iso, PER_SHARD)
        occupancy.found(mark, key, len(due))
        return due
    items = repo.open_on(shard, PER_SHARD)
    if not items:
        repo.markers.clear(key, mark)
    upto = f"{cutoff_iso}~"
    return [i for i in items if i["gsi3sk"] <= upto]


def _folds_due(shard: int, cutoff_ts: int, m: Marks) -> list[dict]:
    """The due fold entries of a marked shard; a clearable marker whose shard holds no entry at
    all is cleared."""
    key = repo.fold_mark(shard)
    mark = m.get(key)
    if mark is None:
        return []
    items = repo.folds_due(shard, cutoff_ts, PER_SHARD)
    occupancy.found(mark, key, len(items))
    if not items and occupancy.clearable(mark) and not repo.folds_on(shard):
        repo.markers.clear(key, mark)
    return items


def requeue_folds(m: Marks | None = None) -> int:
    """The analytics fold outbox: re-queue every ``attempt_graded`` whose fold has waited more than
    ``FOLD_DUE_AFTER`` seconds (its message was refused or lost); each is counted in the
    ``AnalyticsFoldsRequeued`` metric. A queue still refusing leaves the entry for the next run.
    ``m``: the markers read by the tick (``marks``), else read here."""
    if m is None:
        m = marks()
    cutoff = int(clock.now_ts()) - repo.FOLD_DUE_AFTER
    n = 0
    for shard in range(settings().sweep_shards):
        for item in _folds_due(shard, cutoff, m):
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
