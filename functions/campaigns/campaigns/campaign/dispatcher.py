"""The dispatcher: starts due campaigns, fans their audience out to the send queue in resumable
steps, decides A/B winners and finishes campaigns, each step exactly once.

Fan-out is a chain of ``fanout`` messages on the send queue, each reading one page of list members
(cursor kept on the campaign) and queueing batches of recipients. A step is applied with a
condition on ``fanout_seq``, so a redelivered step changes nothing twice; its batches carry stable
batch numbers, and batches are counted once (see ``sending.repository.complete_batch``).

Triggered by a one-minute EventBridge schedule (``lambda_handler``); immediate sends are also
started at once through a ``start`` message.
"""
from __future__ import annotations

import datetime as dt

from lambdakit import clock, occupancy
from lambdakit.observability import worker_entry

from ..http import logger
from ..sending import relay as bulk_relay
from ..sending import repository as send_repo
from ..webhooks import dispatch as webhook_dispatch
from . import repository as repo

# Cold start: a tick with nothing due needs none of a campaign start's send context (sendctx: the
# sending pipeline, providers), the audience reads or the finish's counters and events; each step
# imports what it uses.

PAGE = 1000
BATCH_SIZE = 100
STALE_FANOUT_SECONDS = 300


def start(cid: str, seen: dict | None = None) -> bool:
    """Start a due campaign, once. ``seen``: the campaign as the due index showed it; the list
    counters and template it names are read with the campaign (one consistent BatchGetItem) and
    used when the campaign read back still names them."""
    from .sendctx import ab_test_target, estimated_recipients, snapshot, start_reads

    also = start_reads(seen) if seen else []
    item, have = repo.get_with(cid, also, consistent=True) if also else (repo.get(cid, consistent=True), {})
    now = clock.now_iso()
    if not item or item.get("status") != "scheduled" or (item.get("scheduled_for") or "") > now:
        return False
    total = estimated_recipients(item["account_id"], item, have)
    ab = item.get("ab_test") or {}
    phase, target = "main", None
    if ab and (item.get("audience") or {}).get("type") == "list":
        phase, target = "test", ab_test_target(item, total)
    fields = {**snapshot(item, have), "send_started_at": now, "updated_at": now, "phase": phase, "ab_target": target,
              "fanout_seq": 0, "fanout_cursor": None, "fanout_batches": 0, "fanout_recipients": 0,
              "fanout_done": False, "batches_done": 0, "fanout_touched_at": now, "gsi3pk": "CAMPSENDING",
              "gsi3sk": cid}
    try:
        repo.transition(item, ["scheduled"], "sending", set=fields, extra_condition="scheduled_for <= :now",
                        values={":now": now})
    except repo.InvalidState:
        return False
    send_repo.enqueue([{"type": "fanout", "campaign_id": cid, "seq": 0}])
    return True


def fanout(cid: str, seq: int) -> None:
    from ..sending import audience

    item = repo.get(cid, consistent=True)
    if (not item or item.get("status") != "sending" or int(item.get("fanout_seq", -1)) != seq
            or item.get("fanout_done") or item.get("phase") == "wait"):
        return
    a = item["account_id"]
    aud = item.get("audience") or {}
    phase = item.get("phase") or "main"
    done_so_far = int(item.get("fanout_recipients", 0) or 0)
    nvar = len((item.get("ab_test") or {}).get("variations") or [])
    if aud.get("type") == "test":
        entries, nxt = [{"e": e} for e in aud.get("test_emails") or []], None
    else:
        limit = PAGE
        if phase == "test":
            limit = max(0, min(PAGE, int(item.get("ab_target") or 0) - done_so_far))
        ids_, nxt = audience.page_members(a, aud.get("list_id") or "", item.get("fanout_cursor"), limit) if limit else (
            [], item.get("fanout_cursor"))
        entries = []
        for i, c in enumerate(ids_):
            e: dict = {"c": c}
            if phase == "test" and nvar:
                e["v"] = (done_so_far + i) % nvar
            elif item.get("ab_winner") is not None:
                e["v"] = int(item["ab_winner"])
            entries.append(e)
    first = int(item.get("fanout_batches", 0) or 0)
    chunks = [entries[i:i + BATCH_SIZE] for i in range(0, len(entries), BATCH_SIZE)]
    send_repo.enqueue([{"type": "batch", "campaign_id": cid, "batch_no": first + n + 1, "recipients": ch}
                       for n, ch in enumerate(chunks)])
    now = clock.now_iso()
    sets: dict = {"fanout_cursor": nxt, "fanout_touched_at": now}
    total_now = done_so_far + len(entries)
    if nxt is None:
        sets["fanout_done"] = True
    elif phase == "test" and total_now >= int(item.get("ab_target") or 0):
        decide = clock.iso(clock.now() + dt.timedelta(hours=int(item["ab_test"]["test_duration_hours"])))
        sets.update(phase="wait", ab_decide_at=decide, gsi3pk="CAMPDUE", gsi3sk=f"{decide}#{cid}")
    updated = repo.update_progress(cid, set=sets, add={"fanout_seq": 1, "fanout_batches": len(chunks),
                                                       "fanout_recipients": len(entries)},
                                   condition="fanout_seq = :seq AND #st = :sending", names={"#st": "status"},
                                   values={":seq": seq, ":sending": "sending"})
    if updated is None:
        return
    if updated.get("fanout_done"):
        maybe_finish(cid, updated)
    elif updated.get("phase") != "wait":
        send_repo.enqueue([{"type": "fanout", "campaign_id": cid, "seq": seq + 1}])


def maybe_finish(cid: str, written: dict | None = None) -> bool:
    """Finish a campaign whose fan-out is done and whose batches are all counted, once.

    ``written``: the campaign as a write of the caller just left it (its ``ALL_NEW`` image), used
    instead of a consistent read (one round trip fewer). Race-free: the fan-out's last write and
    each batch's count are writes to this one item, and each writer checks the state at or after its
    own write, so whichever comes last sees both and finishes; the transition's condition makes it
    once."""
    item = written if written is not None else repo.get(cid, consistent=True)
    if (not item or item.get("status") != "sending" or not item.get("fanout_done")
            or int(item.get("batches_done", 0) or 0) < int(item.get("fanout_batches", 0) or 0)):
        return False
    from .. import events
    from ..counters import repository as counters

    now = clock.now_iso()
    try:
        repo.transition(item, ["sending"], "sent", set={"sent_at": now, "updated_at": now},
                        remove=["gsi3pk", "gsi3sk"],
                        extra_condition="fanout_done = :t AND batches_done >= fanout_batches", values={":t": True})
    except repo.InvalidState:
        return False
    counters.record_campaign_sent(item["account_id"], cid, now)
    counters.add_day(item["account_id"], clock.today(), {"campaigns_sent": 1})
    events.emit(item["account_id"], "campaign.sent", {
        "campaign_id": cid, "campaign_name": item.get("name"), "sent_at": now,
        "recipient_count": int(item.get("st_sent", 0) or 0),
        "provider": (item.get("snap_provider") or {}).get("name")}, event_key=f"campaign.sent:{cid}")
    return True


def decide_winner(cid: str) -> bool:
    item = repo.get(cid, consistent=True)
    now = clock.now_iso()
    if (not item or item.get("status") != "sending" or item.get("phase") != "wait"
            or (item.get("ab_decide_at") or "") > now):
        return False
    n = len(item["ab_test"]["variations"])
    rates = []
    for i in range(n):
        sent = int(item.get(f"ab_sent_{i}", 0) or 0)
        rates.append((int(item.get(f"ab_opened_{i}", 0) or 0) / sent) if sent else 0.0)
    winner = max(range(n), key=lambda i: (rates[i], -i))
    updated = repo.update_progress(
        cid, set={"phase": "main", "ab_winner": winner, "ab_decided_at": now, "gsi3pk": "CAMPSENDING", "gsi3sk": cid,
                  "fanout_touched_at": now},
        add={"fanout_seq": 1}, condition="phase = :wait AND #st = :sending", names={"#st": "status"},
        values={":wait": "wait", ":sending": "sending"})
    if updated is None:
        return False
    send_repo.enqueue([{"type": "fanout", "campaign_id": cid, "seq": int(updated["fanout_seq"])}])
    return True


def tick() -> dict:
    """One scheduler run: due campaigns and A/B decisions, then finishing and stalled fan-outs,
    then the outbox relays (issue 23 rule 4): bulk batches and webhook deliveries recorded but not
    queued (an SQS failure, a crash) are queued now. A queue failure on one item is logged and
    left to the next tick; the other items go on."""
    now = clock.now_iso()
    started = decided = finished = resumed = 0
    for it in repo.due(now):
        try:
            if it.get("status") == "scheduled":
                started += start(it["id"], it)
            elif it.get("status") == "sending" and it.get("phase") == "wait":
                decided += decide_winner(it["id"])
        except send_repo.QueueFailed:  # recorded as sending: the stalled fan-out resume below queues it
            logger.warning("send queue refused a campaign step", extra={"campaign_id": it["id"]})
    stale = clock.iso(clock.now() - dt.timedelta(seconds=STALE_FANOUT_SECONDS))
    for it in repo.sending():
        if it.get("fanout_done"):
            finished += maybe_finish(it["id"])
        elif it.get("phase") != "wait" and (it.get("fanout_touched_at") or "") < stale:
            repo.update_progress(it["id"], set={"fanout_touched_at": now}, condition="fanout_seq = :s",
                                 values={":s": int(it.get("fanout_seq", 0))})
            try:
                send_repo.enqueue([{"type": "fanout", "campaign_id": it["id"], "seq": int(it.get("fanout_seq", 0))}])
                resumed += 1
            except send_repo.QueueFailed:  # touched: tried again after another STALE_FANOUT_SECONDS
                logger.warning("send queue refused a fan-out resume", extra={"campaign_id": it["id"]})
    marks = _relay_marks()
    return {"started": started, "decided": decided, "finished": finished, "resumed": resumed,
            "bulk_batches_requeued": _relay("bulk", bulk_relay.resume, marks),
            "webhooks_requeued": _relay("webhooks", webhook_dispatch.relay_stale, marks)}


def _relay_marks() -> dict | None:
    """The occupancy markers of both relays' indexes in one read (``lambdakit.occupancy``):
    each relay queries only its marked partitions, and every partition once in
    ``occupancy.FULL_SWEEP_MINUTES``, spread over the period (``occupancy.with_net``). ``None`` when
    the read failed: each relay then reads its own."""
    keys = bulk_relay.mark_keys() + webhook_dispatch.mark_keys()
    try:
        marks = occupancy.read(send_repo.table(), keys)
    except Exception:  # noqa: BLE001 - the relays read their own markers
        logger.exception("relay markers not read; each relay reads its own")
        return None
    # the net under the markers' timing assumptions: every partition, now and then
    return occupancy.with_net(keys, marks)


def _relay(name: str, run, marks: dict | None) -> int:
    """One outbox relay of the tick; its failure is logged and left to the next tick (the outbox
    keeps what it did not queue), so it never stops the other relay."""
    try:
        return int(run(marks=marks))
    except Exception:  # noqa: BLE001 - retried by the next tick
        logger.exception("outbox relay failed; the next tick resumes it", extra={"relay": name})
        return 0


@worker_entry(logger)
def lambda_handler(event: dict, context) -> dict:
    result = tick()
    logger.info("dispatcher tick", extra=result)
    return result
