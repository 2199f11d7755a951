"""Processing of one batch message (campaign or bulk): resolve recipients, pace, deliver each
exactly once, apply the batch's counters once, emit events, finish the send when it was the last.
A campaign's batch enters through ``campaigns.campaign.worker.run_campaign_batch`` (which checks the
campaign is still sending and finishes it after its last batch), a bulk batch through ``run_bulk``."""
from __future__ import annotations

from typing import Callable

from lambdakit import clock

from ..account.service import postal_address
from ..attachments import service as attachments
from ..senders import service as senders
from ..webhooks.dispatch import emit_many
from . import pipeline, suppression
from . import repository as repo
from .compose import Footer, Tracking
from .message import Attachment
from .providers import ProviderChoice

CANCEL_CHECK_EVERY = 20


def apply_effects(ctx: pipeline.SendContext, results: list[pipeline.Result]) -> None:
    """Events and contact changes of the fresh outcomes of this attempt (sandbox feedback)."""
    evs: list[tuple[str, dict, str | None]] = []
    now = clock.now_iso()
    for r in results:
        if not r.fresh:
            continue
        common = {"message_id": r.message_id, "email": r.email, "contact_id": r.contact_id,
                  "campaign_id": ctx.campaign_id, "bulk_id": ctx.bulk_id, "provider": ctx.provider.name}
        if r.status == "delivered":
            evs.append(("email.delivered", {**common, "delivered_at": now}, f"email.delivered:{ctx.send_id}:{r.rkey}"))
        elif r.status == "bounced":
            suppression.contact_bounced(ctx.account_id, r.contact_id, r.email, hard=True)
            evs.append(("email.bounced", {**common, "bounce_type": "hard", "bounce_subtype": "General",
                                          "diagnostic": "Simulated bounce (sandbox)", "bounced_at": now},
                        f"email.bounced:{ctx.send_id}:{r.rkey}"))
        elif r.status == "complained":
            evs.append(("email.delivered", {**common, "delivered_at": now}, f"email.delivered:{ctx.send_id}:{r.rkey}"))
            suppression.contact_complained(ctx.account_id, r.contact_id, r.email, campaign_id=ctx.campaign_id)
    emit_many(ctx.account_id, evs) if evs else None


def run(ctx: pipeline.SendContext, entries: list[dict], *, batch_no: int, owner: tuple[str, str],
        remaining_ms: Callable[[], int], extra_add: Callable[[list[pipeline.Result]], dict] | None = None) -> bool:
    """Deliver one batch. Returns True when its counters were applied now (False: applied before)."""
    recipients = pipeline.resolve_contacts(ctx.account_id, entries)
    if not senders.verified_for(ctx.account_id, ctx.provider.from_email):
        # The sender was deleted (or lost) after the send was accepted: nobody gets mail from an
        # address the account no longer owns; each recipient is recorded failed with the reason.
        ctx.refused = f"sender_not_verified: {ctx.provider.from_email}"
    gate = pipeline.RateGate(ctx.account_id, ctx.provider.name, lambda: remaining_ms() / 1000.0)
    results: list[pipeline.Result] = []
    for n, r in enumerate(recipients):
        if n % CANCEL_CHECK_EVERY == 0 and ctx.is_stopped():
            break
        if remaining_ms() < 8000:
            raise pipeline.Throttled("out of time; the rest of the batch is redelivered")
        if not ctx.refused:  # nothing goes to the provider: no sending capacity used
            gate.take()
        results.append(pipeline.deliver(ctx, r))
    c = pipeline.count(results, ctx.provider.name)
    add = {"batches_done": 1, "st_sent": c["sent"], "st_delivered": c["delivered"], "st_bounced": c["bounced"],
           "st_complained": c["complained"], "st_failed": c["failed"], "st_skipped": c["skipped"]}
    if extra_add:
        add.update(extra_add(results))
    day = {k: c[k] for k in ("sent", "delivered", "bounced", "complained", "failed")}
    applied = repo.complete_batch(ctx.send_id, batch_no, account_id=ctx.account_id, owner=owner, owner_add=add,
                                  counts=day, campaign_id=ctx.campaign_id, provider=ctx.provider.name)
    apply_effects(ctx, results)
    return applied


# ---------------------------------------------------------------- bulk
def bulk_context(bulk: dict) -> pipeline.SendContext:
    p = bulk["provider"]
    t = bulk.get("tracking") or {}
    files: list[Attachment] = []
    blocked = None
    try:  # uploaded attachments are read from S3 once per batch, when composing
        files = [Attachment(n, d, ty) for n, d, ty in attachments.load(bulk["account_id"], bulk.get("attachments") or [])]
    except attachments.AttachmentGone:
        blocked = "An uploaded attachment is no longer stored (expired)"
    return pipeline.SendContext(
        account_id=bulk["account_id"], send_id=f"b-{bulk['id']}", kind="bulk", subject=bulk["subject"],
        html=bulk.get("html"), text=bulk.get("text"),
        provider=ProviderChoice(p["name"], p["from_email"], p.get("from_name") or "", p.get("reply_to")),
        tracking=Tracking(opens=t.get("track_opens", True), clicks=t.get("track_clicks", True)),
        unsubscribe=True, footer=Footer(postal_address(bulk["account_id"])), bulk_id=bulk["id"],
        variables=bulk.get("variables") or {},
        metadata=bulk.get("metadata") or {}, attachments=files, blocked=blocked)


def run_bulk(message: dict, remaining_ms: Callable[[], int]) -> None:
    bulk = repo.get_bulk(message["bulk_id"])
    if not bulk:
        return
    ctx = bulk_context(bulk)
    run(ctx, message["recipients"], batch_no=int(message["batch_no"]), owner=repo.bulk_key(bulk["id"]),
        remaining_ms=remaining_ms)
    repo.finish_bulk_if_done(bulk["id"])
