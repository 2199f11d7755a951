"""The outbox relay of bulk sends (issue 23 rule 4: an SQS failure leaves nothing half-queued).

``POST /email/bulk`` writes one outbox row per batch and then the bulk's ``META`` (the commit
point, ``repository.put_bulk``), and relays at once: it sends the rows' messages in order and
deletes each row whose message SQS took. A row SQS did not take (an error answer, a ``Failed``
entry, the request's time budget spent) stays in the outbox; the route still answers 202, with
``status: "queueing"`` and ``batches_queued`` saying how far it got, and the dispatcher's
one-minute tick (``resume``) takes the relay lease of such bulks and queues the rest, counting
``BulkBatchesRequeued``. A bulk is never half-queued for good: every committed batch is queued,
and none is queued by two relayers at once (the lease).

Exactly-once: a row is deleted after its message was taken, so a crash (or a failed delete)
between the two queues that batch again if the relay resumes: at least once. (When every
message was taken the relay ends even if a delete failed: the leftover rows are never queued
again and expire with their TTL.) The batch itself is idempotent
(each recipient is claimed once per send, the batch's counters applied once:
``repository.claim`` / ``complete_batch``), so a batch queued twice sends and counts nothing twice.
"""
from __future__ import annotations

import datetime as dt
import logging
import time

from lambdakit import clock
from lambdakit.observability import count as metric

from . import repository as repo

logger = logging.getLogger("campaigns.sending")

#: How long a relayer holds a bulk (longer than the API function's 29 s timeout).
LEASE_SECONDS = 120
#: Time the POST spends queueing before it leaves the rest to the tick.
ROUTE_BUDGET_SECONDS = 12.0
#: Time one tick spends on all bulk relays (the dispatcher's timeout is 120 s).
TICK_BUDGET_SECONDS = 45.0
#: Rows per round: one SendMessageBatch call (ten messages), then one delete of the rows it took
#: (a crash between two rounds leaves only the unsent rows behind).
GROUP = 10


def lease_until(seconds: int = LEASE_SECONDS) -> str:
    return clock.iso(clock.now() + dt.timedelta(seconds=seconds))


def message(bulk_id: str, row: dict) -> dict:
    return {"type": "batch", "bulk_id": bulk_id, "batch_no": int(row["batch_no"]), "recipients": row["recipients"]}


def relay(bulk_id: str, rows: list[dict], deadline: float) -> tuple[int, int]:
    """Queue ``rows`` in order until one is refused or ``deadline`` (``time.monotonic``) passes.
    Returns ``(taken, left)``: messages SQS took now, rows it did not take (still to queue)."""
    taken_n = 0
    for i in range(0, len(rows), GROUP):
        if time.monotonic() > deadline:
            break
        group = rows[i:i + GROUP]
        taken = repo.send_batch([message(bulk_id, r) for r in group], [int(r.get("delay") or 0) for r in group])
        taken_n += len(taken)
        if taken:
            try:
                repo.rows_queued(bulk_id, [int(group[j]["batch_no"]) for j in sorted(taken)])
            except Exception:  # noqa: BLE001 - a row left behind is queued again only if the relay resumes
                logger.exception("queued bulk batches could not be removed from the outbox", extra={"bulk_id": bulk_id})
        if len(taken) < len(group):
            logger.warning("the send queue did not take every bulk batch; the dispatcher resumes",
                           extra={"bulk_id": bulk_id, "refused": len(group) - len(taken)})
            break
    return taken_n, len(rows) - taken_n


def settle(bulk_id: str, left: int) -> None:
    """After a relay: leave the relay index when the outbox is empty, else give the lease back
    so the next tick resumes at once. Best-effort: a lost write only delays the next tick (an
    expired lease), and an empty outbox found by the tick ends the relay then."""
    try:
        if left:
            repo.release_relay(bulk_id, clock.now_iso())
        else:
            repo.end_relay(bulk_id)
    except Exception:  # noqa: BLE001 - the bulk is committed; its answer stays the 202
        logger.exception("bulk relay state not recorded", extra={"bulk_id": bulk_id})


def mark_keys() -> list[tuple[str, str]]:
    """The occupancy marker of the relay index (read by the tick with the other relays')."""
    return [repo.RELAY_MARK]


def resume(limit: int = 50, budget_seconds: float = TICK_BUDGET_SECONDS, marks: dict | None = None) -> int:
    """One tick: queue the outbox rows of bulks whose relay stopped (lease run out). Returns the
    batches queued; each is counted in the ``BulkBatchesRequeued`` metric. ``marks``: the
    occupancy markers read by the tick (``mark_keys``), else read here."""
    deadline = time.monotonic() + budget_seconds
    total = 0
    for b in repo.relaying_bulks(limit, marks):
        now = clock.now_iso()
        if time.monotonic() > deadline or (b.get("relay_lease_until") or "") >= now:
            continue
        if not repo.take_relay(b["id"], now, lease_until()):
            continue
        rows = repo.outbox_rows(b["id"])
        taken, left = relay(b["id"], rows, deadline)
        if taken:
            metric("BulkBatchesRequeued", taken)
            logger.info("bulk batches queued on resume", extra={"bulk_id": b["id"], "batches": taken, "left": left})
        settle(b["id"], left)
        total += taken
    return total
